import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import { canonicalJson, payloadHash } from './hash.ts'

describe('canonicalJson', () => {
  it('is byte-identical to RFC 8785 for well-formed values', () => {
    const value = { b: [1, 2.5, 'x', null, { z: true, a: 'é' }], a: 1e21, c: 'line\nnext' }
    expect(canonicalJson(value)).toBe(canonicalize(value))
  })

  it('never throws: a lone surrogate and a 100,000-deep value hash, and stay distinct', () => {
    expect(canonicalJson({ a: '\ud800', b: [undefined, 1] })).toBe('{"a":"\\ud800","b":[null,1]}')
    expect(payloadHash({ tool: 'Bash', input: { command: '\ud800' } })).not.toBe(payloadHash({ tool: 'Bash', input: { command: '\udc00' } }))
    expect(payloadHash({ tool: 'Bash', input: { command: '\ud800' } })).not.toBe(payloadHash({ tool: 'Bash', input: { command: '\ufffd' } }))
    let deep: unknown = 'x'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(payloadHash({ tool: 'Bash', input: { deep } })).toMatch(/^[0-9a-f]{64}$/)
  })
})
