/**
 * The browser's verification module (web/verify.js), run as is in Node's WebCrypto against the shared
 * RFC 6962 / RFC 9162 vectors, the proof probes and the C2SP signed-note vectors.
 */
import { describe, expect, it } from 'vitest'
import { loadVectors } from '../../testing/vectors.ts'

interface VerifyModule {
  fromHex(hex: string): Uint8Array
  toHex(bytes: Uint8Array): string
  hashLeaf(leaf: Uint8Array): Promise<Uint8Array>
  rootFromInclusion(index: number, size: number, leafHash: Uint8Array, proof: Uint8Array[]): Promise<Uint8Array | string>
  verifyConsistency(size1: number, size2: number, proof: Uint8Array[], root1: Uint8Array, root2: Uint8Array): Promise<{ ok: boolean; reason?: string }>
  verifyNote(note: string, vkey: string): Promise<{ ok: boolean; reason?: string }>
  parseCheckpoint(text: string): { origin: string; size: number; root: Uint8Array } | undefined
}

const v = (await import('./web/verify.js' as string)) as VerifyModule

interface Inclusion {
  leaf_index: number
  tree_size: number
  leaf_hash: string
  root: string
  proof: string[]
  want_valid?: boolean
  desc?: string
}
interface Consistency {
  size1: number
  size2: number
  root1: string
  root2: string
  proof: string[]
  want_valid?: boolean
  desc?: string
}

const merkle = loadVectors<{ leaves: string[]; leaf_hashes: string[]; inclusion_proofs: Inclusion[]; consistency_proofs: Consistency[] }>('rfc6962-merkle-8leaf.json')
const probes = loadVectors<{ inclusion: Inclusion[]; consistency: Consistency[] }>('rfc6962-proof-probes.json')
const notes = loadVectors<{
  published_vectors: { vkey: string; signed_note: string; want_valid: boolean }[]
  generated_checkpoints: { checkpoints: { tree_size: number; root_hex: string; signed_note: string; vkey: string }[] }
}>('signed-note-checkpoint.json')

async function inclusionHolds(c: Inclusion): Promise<boolean> {
  const root = await v.rootFromInclusion(c.leaf_index, c.tree_size, v.fromHex(c.leaf_hash), c.proof.map(v.fromHex))
  return typeof root !== 'string' && v.toHex(root) === c.root
}

describe('web/verify.js against the shared vectors', () => {
  it('hashes every leaf as SHA-256(0x00 || leaf)', async () => {
    for (const [i, leaf] of merkle.leaves.entries()) expect(v.toHex(await v.hashLeaf(v.fromHex(leaf)))).toBe(merkle.leaf_hashes[i])
  })

  it('accepts every published inclusion and consistency proof', async () => {
    for (const c of merkle.inclusion_proofs) expect(await inclusionHolds(c), `inclusion ${c.leaf_index}/${c.tree_size}`).toBe(true)
    for (const c of merkle.consistency_proofs) {
      const r = await v.verifyConsistency(c.size1, c.size2, c.proof.map(v.fromHex), v.fromHex(c.root1), v.fromHex(c.root2))
      expect(r, `consistency ${c.size1}->${c.size2}`).toEqual({ ok: true })
    }
  })

  it('answers every probe as the vectors want (corrupted proofs fail)', async () => {
    for (const c of probes.inclusion) expect(await inclusionHolds(c), `inclusion probe: ${c.desc}`).toBe(c.want_valid)
    for (const c of probes.consistency) {
      const r = await v.verifyConsistency(c.size1, c.size2, c.proof.map(v.fromHex), v.fromHex(c.root1), v.fromHex(c.root2))
      expect(r.ok, `consistency probe: ${c.desc}`).toBe(c.want_valid)
    }
  })

  it('verifies signed notes and checkpoints with WebCrypto Ed25519, and refuses a flipped byte', async () => {
    for (const n of notes.published_vectors) expect((await v.verifyNote(n.signed_note, n.vkey)).ok).toBe(n.want_valid)
    for (const c of notes.generated_checkpoints.checkpoints) {
      expect((await v.verifyNote(c.signed_note, c.vkey)).ok).toBe(true)
      const parsed = v.parseCheckpoint(c.signed_note)
      expect(parsed?.size).toBe(c.tree_size)
      expect(v.toHex(parsed!.root)).toBe(c.root_hex)
      const tampered = c.signed_note.replace(`\n${c.tree_size}\n`, `\n${c.tree_size + 1}\n`)
      expect(await v.verifyNote(tampered, c.vkey)).toEqual({ ok: false, reason: 'Ed25519 signature does not verify' })
    }
  })
})
