import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { loadVectors, hex } from '../../testing/vectors.ts'
import { EMPTY_ROOT, hashChildren, hashLeaf, splitPoint } from './merkle.ts'
import { CompactRange } from './compact-range.ts'
import { consistencyPath, inclusionPath, rangeHash } from './proof-build.ts'
import { verifyConsistency, verifyInclusion } from '../../ledger-verify/proof-verify.ts'

interface Tree8 {
  leaves: string[]
  leaf_hashes: string[]
  roots_by_tree_size: { tree_size: number; root: string }[]
  hasher_unit_vectors: { kind?: string; leaf_hex?: string; left_hex?: string; right_hex?: string; expected: string }[]
  inclusion_proofs: { leaf_index: number; tree_size: number; leaf_hash: string; root: string; proof: string[] }[]
  consistency_proofs: { size1: number; size2: number; root1: string; root2: string; proof: string[] }[]
}
interface Probes {
  inclusion: { desc: string; leaf_index: number; tree_size: number; leaf_hash: string; root: string; proof: string[]; want_valid: boolean }[]
  consistency: { desc: string; size1: number; size2: number; root1: string; root2: string; proof: string[]; want_valid: boolean }[]
}

/** Brute-force RFC 6962 definitions straight from the RFC text, used only as a reference. */
const ref = {
  mth(leaves: Buffer[]): Buffer {
    if (leaves.length === 0) return EMPTY_ROOT
    if (leaves.length === 1) return hashLeaf(leaves[0]!)
    const k = splitPoint(leaves.length)
    return hashChildren(ref.mth(leaves.slice(0, k)), ref.mth(leaves.slice(k)))
  },
  path(m: number, leaves: Buffer[]): Buffer[] {
    if (leaves.length <= 1) return []
    const k = splitPoint(leaves.length)
    return m < k ? [...ref.path(m, leaves.slice(0, k)), ref.mth(leaves.slice(k))] : [...ref.path(m - k, leaves.slice(k)), ref.mth(leaves.slice(0, k))]
  },
  subproof(m: number, leaves: Buffer[], whole: boolean): Buffer[] {
    const n = leaves.length
    if (m === n) return whole ? [] : [ref.mth(leaves)]
    const k = splitPoint(n)
    return m <= k ? [...ref.subproof(m, leaves.slice(0, k), whole), ref.mth(leaves.slice(k))] : [...ref.subproof(m - k, leaves.slice(k), false), ref.mth(leaves.slice(0, k))]
  },
}

/** Stores perfect nodes the way the SQLite ledger does, in a Map, by appending through a compact range. */
function buildStore(leaves: Buffer[]) {
  const nodes = new Map<string, Buffer>()
  const range = new CompactRange()
  for (const leaf of leaves) for (const n of range.append(hashLeaf(leaf))) nodes.set(`${n.level}/${n.idx}`, n.hash)
  const read = (level: number, idx: number): Buffer => {
    const h = nodes.get(`${level}/${idx}`)
    if (!h) throw new Error(`missing node ${level}/${idx}`)
    return h
  }
  return { read, range }
}

const tree8 = loadVectors<Tree8>('rfc6962-merkle-8leaf.json')
const probes = loadVectors<Probes>('rfc6962-proof-probes.json')
const leaves8 = tree8.leaves.map(hex)

describe('RFC 6962 hashing', () => {
  it('matches the hasher unit vectors', () => {
    for (const v of tree8.hasher_unit_vectors) {
      const got = v.kind === 'leaf' ? hashLeaf(hex(v.leaf_hex!)) : v.kind === 'node' ? hashChildren(hex(v.left_hex!), hex(v.right_hex!)) : EMPTY_ROOT
      expect(got.toString('hex'), JSON.stringify(v)).toBe(v.expected)
    }
    expect(leaves8.map((l) => hashLeaf(l).toString('hex'))).toEqual(tree8.leaf_hashes)
  })

  it('computes every root of the 8-leaf tree from stored nodes and the compact range', () => {
    for (const { tree_size, root } of tree8.roots_by_tree_size) {
      const { read, range } = buildStore(leaves8.slice(0, tree_size))
      expect((range.root() ?? EMPTY_ROOT).toString('hex')).toBe(root)
      if (tree_size > 0) expect(rangeHash(read, 0, tree_size).toString('hex')).toBe(root)
      expect(CompactRange.fromStore(tree_size, read).root()?.toString('hex') ?? EMPTY_ROOT.toString('hex')).toBe(root)
    }
  })

  it('generates every published inclusion and consistency proof byte for byte', () => {
    const { read } = buildStore(leaves8)
    for (const p of tree8.inclusion_proofs) {
      expect(inclusionPath(read, p.leaf_index, p.tree_size).map((b) => b.toString('hex'))).toEqual(p.proof)
      expect(verifyInclusion(p.leaf_index, p.tree_size, hex(p.leaf_hash), p.proof.map(hex), hex(p.root))).toEqual({ ok: true })
    }
    for (const p of tree8.consistency_proofs) {
      expect(consistencyPath(read, p.size1, p.size2).map((b) => b.toString('hex'))).toEqual(p.proof)
      expect(verifyConsistency(p.size1, p.size2, p.proof.map(hex), hex(p.root1), hex(p.root2))).toEqual({ ok: true })
    }
  })

  it('agrees with want_valid on every transparency-dev probe', () => {
    expect(probes.inclusion.length + probes.consistency.length).toBe(196)
    for (const p of probes.inclusion) {
      const got = verifyInclusion(p.leaf_index, p.tree_size, hex(p.leaf_hash), p.proof.map(hex), hex(p.root))
      expect(got.ok, `inclusion: ${p.desc}`).toBe(p.want_valid)
    }
    for (const p of probes.consistency) {
      const got = verifyConsistency(p.size1, p.size2, p.proof.map(hex), hex(p.root1), hex(p.root2))
      expect(got.ok, `consistency: ${p.desc}`).toBe(p.want_valid)
    }
  })

  it('verifies the real Rekor inclusion proof and rejects its negative variants', () => {
    const r = loadVectors<{ leaf_index: number; tree_size: number; root: string; leaf_body_base64: string; proof: string[]; negative_variants: Record<string, unknown>[] }>(
      'rekor-inclusion-real.json',
    )
    const check = (v: { leaf_index: number; leaf_body_base64: string; proof: string[] }) =>
      verifyInclusion(v.leaf_index, r.tree_size, hashLeaf(Buffer.from(v.leaf_body_base64, 'base64')), v.proof.map(hex), hex(r.root))
    expect(check(r).ok).toBe(true)
    for (const variant of r.negative_variants) {
      const v = { ...r, ...variant } as typeof r & { proof_length?: number }
      if (typeof v.proof_length === 'number') v.proof = r.proof.slice(0, v.proof_length)
      expect(check(v).ok, JSON.stringify(variant).slice(0, 80)).toBe(false)
    }
  })
})

describe('stored-node proofs against a brute-force tree (property)', () => {
  const leavesArb = fc.array(fc.uint8Array({ maxLength: 12 }), { minLength: 1, maxLength: 140 }).map((a) => a.map((u, i) => Buffer.concat([Buffer.from(u), Buffer.from(`#${i}`)])))

  it('inclusion proofs equal RFC PATH and verify; any single-bit flip is rejected', () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), fc.nat(), (leaves, a, b, flip) => {
        const size = 1 + (a % leaves.length)
        const index = b % size
        const { read } = buildStore(leaves)
        const proof = inclusionPath(read, index, size)
        expect(proof).toEqual(ref.path(index, leaves.slice(0, size)))
        const root = ref.mth(leaves.slice(0, size))
        const leafHash = hashLeaf(leaves[index]!)
        expect(verifyInclusion(index, size, leafHash, proof, root)).toEqual({ ok: true })
        if (proof.length > 0) {
          const bad = proof.map((p) => Buffer.from(p))
          const at = flip % (bad.length * 256)
          bad[Math.floor(at / 256)]![(at % 256) >> 3]! ^= 1 << (at % 8)
          expect(verifyInclusion(index, size, leafHash, bad, root).ok).toBe(false)
          expect(verifyInclusion(index, size, leafHash, proof.slice(1), root).ok).toBe(false)
        }
        if (size > 1) expect(verifyInclusion((index + 1) % size, size, leafHash, proof, root).ok).toBe(false)
      }),
      { numRuns: 150 },
    )
  })

  it('consistency proofs equal RFC SUBPROOF and verify; tampering is rejected', () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), (leaves, a, b) => {
        const size2 = 1 + (a % leaves.length)
        const size1 = 1 + (b % size2)
        const { read } = buildStore(leaves)
        const proof = consistencyPath(read, size1, size2)
        expect(proof).toEqual(ref.subproof(size1, leaves.slice(0, size2), true))
        const root1 = ref.mth(leaves.slice(0, size1))
        const root2 = ref.mth(leaves.slice(0, size2))
        expect(verifyConsistency(size1, size2, proof, root1, root2)).toEqual({ ok: true })
        if (proof.length > 0) {
          const bad = proof.map((p) => Buffer.from(p))
          bad[bad.length - 1]![0]! ^= 0x80
          expect(verifyConsistency(size1, size2, bad, root1, root2).ok).toBe(false)
          expect(verifyConsistency(size1, size2, [...proof, root2], root1, root2).ok).toBe(false)
        }
        if (size1 < size2) expect(verifyConsistency(size1, size2, proof, root2, root1).ok).toBe(false)
      }),
      { numRuns: 150 },
    )
  })

  it('every size up to 300: roots from stored nodes and from the compact range equal MTH', () => {
    const leaves = Array.from({ length: 300 }, (_, i) => Buffer.from(`leaf-${i}`))
    const { read } = buildStore(leaves)
    const range = new CompactRange()
    for (let n = 1; n <= leaves.length; n++) {
      range.append(hashLeaf(leaves[n - 1]!))
      const want = ref.mth(leaves.slice(0, n))
      expect(range.root()).toEqual(want)
      expect(rangeHash(read, 0, n)).toEqual(want)
    }
  })
})
