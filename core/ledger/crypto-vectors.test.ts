import { describe, expect, it } from 'vitest'
import { loadVectors, hex } from '../../testing/vectors.ts'
import { canonicalJson, leafBytes } from './jcs.ts'
import { publicKeyPortable, signingKeyFromSeed, signNative, signPortable, verifyNative, verifyPortable } from './ed25519.ts'
import { sodiumVerifier } from '../../ledger-verify/verifiers.ts'
import { checkpointText, noteKeyId, noteVerifierKey, parseCheckpoint, signNote, verifyNote } from './signed-note.ts'

describe('RFC 8785 JCS', () => {
  const jcs = loadVectors<{
    cases: { name: string; input_text: string; expected_output_utf8_hex: string }[]
    numbers: { vectors: { ieee754_hex: string; expected: string }[]; must_reject: { ieee754_hex: string }[] }
  }>('rfc8785-jcs.json')
  const fromBits = (h: string) => Buffer.from(h, 'hex').readDoubleBE(0)

  it('canonicalises every case byte for byte', () => {
    for (const c of jcs.cases) expect(Buffer.from(canonicalJson(JSON.parse(c.input_text))).toString('hex'), c.name).toBe(c.expected_output_utf8_hex)
  })
  it('serialises the number table and rejects NaN and Infinity', () => {
    for (const v of jcs.numbers.vectors) expect(canonicalJson(fromBits(v.ieee754_hex))).toBe(v.expected)
    for (const v of jcs.numbers.must_reject) expect(() => canonicalJson(fromBits(v.ieee754_hex))).toThrow()
  })
  it('keeps leaves inside the I-JSON subset', () => {
    expect(leafBytes({ b: 1, a: 'x' }).toString()).toBe('{"a":"x","b":1}')
    expect(() => leafBytes({ a: 1.5 })).toThrow(/\$\.a: .*safe integers/)
    expect(() => leafBytes({ a: [2 ** 53] })).toThrow(/\$\.a\[0\]/)
    expect(() => leafBytes({ a: '\uD800' })).toThrow(/lone surrogate/)
    expect(() => leafBytes({ a: new Date() })).toThrow(/cannot appear/)
  })
})

const sodiumVerify = (await sodiumVerifier())!

describe('RFC 8032 Ed25519: node:crypto, noble and libsodium agree', () => {
  const { vectors } = loadVectors<{ vectors: { name: string; secret_key: string; public_key: string; message: string; signature: string }[] }>('rfc8032-ed25519.json')
  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const seed = hex(v.secret_key)
    const msg = hex(v.message)
    const key = signingKeyFromSeed(seed)
    expect(key.publicKey.toString('hex')).toBe(v.public_key)
    expect(Buffer.from(publicKeyPortable(seed)).toString('hex')).toBe(v.public_key)
    expect(signNative(key, msg).toString('hex')).toBe(v.signature)
    expect(Buffer.from(signPortable(seed, msg)).toString('hex')).toBe(v.signature)
    const sig = hex(v.signature)
    expect(verifyNative(sig, msg, key.publicKey)).toBe(true)
    expect(verifyPortable(sig, msg, key.publicKey)).toBe(true)
    expect(sodiumVerify(sig, msg, key.publicKey)).toBe(true)
    const flipped = Buffer.from(sig)
    flipped[0]! ^= 1
    expect(verifyNative(flipped, msg, key.publicKey)).toBe(false)
    expect(verifyPortable(flipped, msg, key.publicKey)).toBe(false)
    expect(sodiumVerify(flipped, msg, key.publicKey)).toBe(false)
    expect(sodiumVerify(sig.subarray(1), msg, key.publicKey)).toBe(false)
    expect(sodiumVerify(sig, msg, Buffer.alloc(32))).toBe(false)
    expect(verifyNative(sig.subarray(1), msg, key.publicKey)).toBe(false)
    expect(verifyPortable(sig, msg, Buffer.alloc(32))).toBe(false)
  })
})

describe('C2SP signed notes and checkpoints', () => {
  const notes = loadVectors<{
    published_vectors: { vkey: string; signed_note: string; want_valid: boolean }[]
    generated_checkpoints: {
      origin: string
      signer_secret_seed_hex: string
      checkpoints: { tree_size: number; root_hex: string; note_text: string; signed_note: string; vkey: string }[]
    }
  }>('signed-note-checkpoint.json')

  it('verifies the published notes with both implementations', () => {
    for (const v of notes.published_vectors) {
      expect(verifyNote(v.signed_note, v.vkey, verifyNative).ok, v.vkey).toBe(v.want_valid)
      expect(verifyNote(v.signed_note, v.vkey, verifyPortable).ok, v.vkey).toBe(v.want_valid)
    }
  })
  it('regenerates the checkpoints byte for byte', () => {
    const g = notes.generated_checkpoints
    const key = signingKeyFromSeed(hex(g.signer_secret_seed_hex))
    for (const c of g.checkpoints) {
      const text = checkpointText(g.origin, c.tree_size, hex(c.root_hex))
      expect(text).toBe(c.note_text)
      expect(signNote(text, g.origin, key)).toBe(c.signed_note)
      expect(noteVerifierKey(g.origin, key.publicKey)).toBe(c.vkey)
      expect(parseCheckpoint(text)).toEqual({ origin: g.origin, size: c.tree_size, root: hex(c.root_hex) })
      const tampered = c.signed_note.replace(`\n${c.tree_size}\n`, `\n${c.tree_size + 1}\n`)
      expect(verifyNote(tampered, c.vkey, verifyNative).ok).toBe(false)
    }
    expect(noteKeyId(g.origin, key.publicKey).toString('hex')).toBe('4c9e1174')
  })
})
