import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import { loadVectors } from '../../testing/vectors.ts'
import { assertLeafJson, leafBytes } from './jcs.ts'

/** The long way leafBytes once always took: check the subset, then the canonicalize package. */
const longWay = (value: Record<string, unknown>): string => {
  assertLeafJson(value)
  return canonicalize(value)!
}

/** Deterministic pseudo-random leaf-like values: nested objects and arrays of the subset's types. */
function randomValue(next: () => number, depth: number): unknown {
  const strings = ['', 'a', 'é', '😀', '\u0000\u001f"\\/', '\u2028\u2029', 'Ω≈ç', '\ud83d\ude00x', 'key', '10', '1', 'B', 'b', '\u007f']
  const pick = Math.floor(next() * (depth > 3 ? 4 : 6))
  if (pick === 0) return strings[Math.floor(next() * strings.length)]! + String(Math.floor(next() * 100))
  if (pick === 1) return [0, -0, 1, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 1e15, 123456789][Math.floor(next() * 8)]
  if (pick === 2) return next() < 0.5
  if (pick === 3) return null
  if (pick === 4) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1))
  const out: Record<string, unknown> = {}
  for (let i = Math.floor(next() * 5); i > 0; i--)
    out[strings[Math.floor(next() * strings.length)]! + (next() < 0.5 ? '' : 'ž')] = next() < 0.1 ? undefined : randomValue(next, depth + 1)
  return out
}

describe('leafBytes', () => {
  it('writes the same bytes as the subset check plus the canonicalize package, for every JCS vector in the subset and 5,000 random leaves', () => {
    const jcs = loadVectors<{ cases: { name: string; input_text: string }[] }>('rfc8785-jcs.json')
    let checked = 0
    for (const c of jcs.cases) {
      const value = JSON.parse(c.input_text) as Record<string, unknown>
      let expected: string
      try {
        expected = longWay(value)
      } catch {
        continue // floats and non-objects are outside the leaf subset
      }
      expect(leafBytes(value).toString('utf8'), c.name).toBe(expected)
      checked++
    }
    expect(checked).toBeGreaterThan(0)
    const own = JSON.parse('{"__proto__":{"x":1},"b":[1,{"2":true,"10":false}]}') as Record<string, unknown>
    expect(leafBytes(own).toString('utf8')).toBe(longWay(own))
    expect(leafBytes(own).toString('utf8')).toBe('{"__proto__":{"x":1},"b":[1,{"10":false,"2":true}]}')
    let seed = 42
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 5000; i++) {
      const value = { seq: i, v: randomValue(next, 0) }
      expect(leafBytes(value).toString('utf8')).toBe(longWay(value))
    }
  })

  it('refuses what is outside the subset with the same message as before, wherever it is', () => {
    expect(() => leafBytes({ z: 1, a: [1, 2.5] })).toThrow(/\$\.a\[1\]: .*safe integers/)
    expect(() => leafBytes({ a: { b: Object.create(null) } })).toThrow(/\$\.a\.b: object cannot appear/)
    expect(() => leafBytes({ '\udc00': 1 })).toThrow(/key contains a lone surrogate/)
    expect(() => leafBytes({ a: () => 1 })).toThrow(/function cannot appear/)
    expect(() => leafBytes({ a: Number.NaN })).toThrow(/safe integers/)
  })
})
