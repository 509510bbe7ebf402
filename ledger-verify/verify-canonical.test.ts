import { describe, expect, it } from 'vitest'
import { loadVectors } from '../testing/vectors.ts'
import { canonicalJson } from '../core/ledger/jcs.ts'
import { isCanonicalText } from './verify-canonical.ts'

/** The verifier's answer must be the JCS library's answer on every text. */
function agrees(text: string): boolean {
  const value: unknown = JSON.parse(text)
  let expected: boolean | 'throws'
  try {
    expected = canonicalJson(value) === text
  } catch {
    expected = 'throws'
  }
  if (expected === 'throws') expect(() => isCanonicalText(text, value), text).toThrow()
  else expect(isCanonicalText(text, value), text).toBe(expected)
  return expected === true
}

describe('isCanonicalText', () => {
  const jcs = loadVectors<{ cases: { name: string; input_text: string; expected_output_utf8_hex: string }[] }>('rfc8785-jcs.json')

  it('accepts every RFC 8785 output and refuses every input that differs from its output', () => {
    for (const c of jcs.cases) {
      const canonical = Buffer.from(c.expected_output_utf8_hex, 'hex').toString('utf8')
      expect(agrees(canonical), c.name).toBe(true)
      expect(agrees(c.input_text), c.name).toBe(c.input_text === canonical)
    }
  })

  it('answers as the library does where the native fast path cannot decide', () => {
    expect(agrees('{"b":1,"a":2}')).toBe(false) // key order
    expect(agrees('{"a":{"d":1,"c":2}}')).toBe(false) // nested key order
    expect(agrees('[{"b":1,"a":2}]')).toBe(false) // inside an array
    expect(agrees('{"a": 1}')).toBe(false) // whitespace
    expect(agrees('{"a":1,"a":1}')).toBe(false) // a duplicate key
    expect(agrees('{"a":1.0}')).toBe(false) // number form
    expect(agrees('{"a":-0}')).toBe(false)
    expect(agrees('{"a":"\\u0041"}')).toBe(false) // a needless escape
    expect(agrees('{"a":"\\u001f"}')).toBe(true) // a needed escape
    expect(agrees('{"10":1,"9":2}')).toBe(true) // integer-like keys: JSON.parse reorders them, JCS sorts as strings
    expect(agrees('{"9":2,"10":1}')).toBe(false)
    agrees('{"a":"\\ud800"}') // a lone surrogate: the library refuses it, and so must the verifier
  })
})
