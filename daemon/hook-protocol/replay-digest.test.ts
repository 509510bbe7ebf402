import { describe, expect, it } from 'vitest'
import { callPayloadBytes, payloadDigest, payloadHash, sha256 } from '../../core/hash.ts'
import { payloadDigestWithout } from './replay-digest.ts'

describe('payloadDigestWithout', () => {
  const COSMETIC = new Set(['description', 'timeout'])
  const omit = (key: string) => COSMETIC.has(key)
  // A small deterministic generator of inputs.
  let seed = 7
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n
  const TEXTS = ['', 'ls -la', 'é', '\u{1f600}', '"quoted"\n', 'description', '\ud800', 'a\udc00b']
  const KEYS = ['command', 'description', 'timeout', 'file_path', 'content', 'é', '10', '__proto__', '\ud800']
  /** What JSON carries (`odd` false), or also what it never does: lone surrogates, NaN, undefined, toJSON, functions. */
  function value(depth: number, odd: boolean): unknown {
    const texts = odd ? TEXTS.length : TEXTS.length - 2
    switch (next(depth > 2 ? 3 : 5) + (odd && next(3) === 0 ? 5 : 0)) {
      case 0:
        return TEXTS[next(texts)]
      case 1:
        return [0, -0, 1.5, 1e21, 120000][next(5)]
      case 2:
        return [true, false, null][next(3)]
      case 3:
        return Array.from({ length: next(3) }, () => value(depth + 1, odd))
      case 4:
        return record(depth + 1, odd)
      case 5:
        return [Number.NaN, Infinity][next(2)]
      case 6:
        return [undefined, () => 1, Symbol('s')][next(3)]
      case 7:
        return new Date(0)
      case 8: {
        const text = TEXTS[next(TEXTS.length)]
        return { toJSON: () => text }
      }
      default:
        return { toJSON: () => undefined }
    }
  }
  function record(depth: number, odd: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    const keys = odd ? KEYS.length : KEYS.length - 1
    // defineProperty: an own `__proto__` key, as JSON.parse makes it.
    for (let i = next(5); i > 0; i--) Object.defineProperty(out, KEYS[next(keys)]!, { value: value(depth, odd), enumerable: true, configurable: true, writable: true })
    return out
  }

  it('is byte-identical to canonicalising the payload and the filtered payload apart, plain input or not', () => {
    const odd = [
      Object.assign(Object.create({ inherited: 1 }) as object, { command: 'x' }),
      { toJSON: () => ({ a: 1 }) },
      Object.assign(Object.create(null) as object, { command: 'x', description: 'd' }),
    ]
    const inputs = [...Array.from({ length: 3000 }, (_, i) => record(0, i % 2 === 0)), ...(odd as Record<string, unknown>[])]
    let joined = 0
    for (const [i, input] of inputs.entries()) {
      const call = { tool: i % 11 === 0 ? 'Bash\ud800' : 'Bash', input, ...(i % 3 === 0 ? {} : { cwd: i % 13 === 0 ? '/w\udfff' : '/w' }) }
      const { digest, withoutHash } = payloadDigestWithout(call, omit)
      expect(digest).toEqual(payloadDigest(call))
      expect(digest.bytes).toBe(callPayloadBytes(call))
      expect(digest.hash).toBe(payloadHash(call))
      const kept = Object.fromEntries(Object.entries(input).filter(([k]) => !omit(k)))
      expect(withoutHash).toBe(payloadHash({ ...call, input: kept }))
      if (digest.strict && withoutHash !== digest.hash) joined++
    }
    // The member join itself ran, with members left out, on a good share of the inputs.
    expect(joined).toBeGreaterThan(250)
  })

  it('hashes once when nothing is left out, and marks bytes RFC 8785 refused as not strict', () => {
    const call = { tool: 'Write', input: { file_path: '/w/a', content: 'x'.repeat(1000) }, cwd: '/w' }
    const { digest, withoutHash } = payloadDigestWithout(call, omit)
    expect(withoutHash).toBe(digest.hash)
    expect(digest).toEqual({ bytes: callPayloadBytes(call), hash: sha256(callPayloadBytes(call)), strict: true })
    expect(payloadDigest({ tool: 'Bash', input: { command: '\ud800' } }).strict).toBe(false)
    expect(payloadDigestWithout({ tool: 'Bash', input: { command: 'ls', description: '\ud800' } }, omit).digest.strict).toBe(false)
  })
})
