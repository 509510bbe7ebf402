import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { certifiedSession, decisionDraft, sessionDraft, tempDir, type TestSession } from '../../testing/ledger-fixtures.ts'
import { verifyNative, verifyPortable } from './ed25519.ts'
import { SqliteLedger as Ledger } from './ledger.ts'
import { leafSignerFor, type LeafSigner } from './leaf.ts'
import { leafSigMessage, type LeafDraft } from './leaf.ts'
import type { LedgerEntry } from '../types.ts'
import { hashChildren, hashLeaf, splitPoint } from './merkle.ts'
import { verifyConsistency, verifyInclusion } from '../../ledger-verify/proof-verify.ts'
import { verifyLedger, type LeafRecord } from '../../ledger-verify/verify-ledger.ts'
import { verifyTuple } from '../../ledger-verify/verify-tuple.ts'

const mth = (hashes: Buffer[]): Buffer => {
  if (hashes.length === 1) return hashes[0]!
  const k = splitPoint(hashes.length)
  return hashChildren(mth(hashes.slice(0, k)), mth(hashes.slice(k)))
}

let tmp: ReturnType<typeof tempDir>
let path: string
beforeEach(() => {
  tmp = tempDir()
  path = join(tmp.dir, 'ledger.db')
})
afterEach(() => tmp.cleanup())

/** A ledger whose `append` signs with the session's key, as the engine does for an active session. */
class SignedLedger extends Ledger {
  readonly defaultSigner: LeafSigner
  constructor(file: string, session: TestSession) {
    super({ path: file })
    this.defaultSigner = leafSignerFor(session.key)
  }
  override append(draft: LeafDraft, sign: LeafSigner | undefined = this.defaultSigner): Promise<LedgerEntry> {
    return super.append(draft, sign)
  }
}
function openWith(session: TestSession): Ledger {
  return new SignedLedger(path, session)
}

function allLeaves(ledger: Ledger): LeafRecord[] {
  return ledger.entries(-1, 1_000_000).map((l) => ({ seq: l.seq, body: l.body, sig: l.signature, leafHash: l.leafHash }))
}

function trustOf(s: TestSession) {
  return [{ public_key: s.hostKey.publicKey.toString('base64'), signer: s.signer }]
}

describe('Ledger', () => {
  it('appends concurrently in seq order, signs every leaf, chains prev hashes, and proves inclusion and consistency', async () => {
    const s = certifiedSession()
    const ledger = openWith(s)
    await ledger.append(sessionDraft(s))
    const entries = await Promise.all(Array.from({ length: 200 }, (_, i) => ledger.append(decisionDraft(s.id, 'software', i))))
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
    expect(entries[5]!.prevLeafHash).toBe(entries[4]!.leafHash)
    expect(ledger.size()).toBe(201)
    const hashes = ledger.entries(-1, 1000).map((l) => l.leafHash)
    expect(ledger.root()).toEqual(mth(hashes))
    for (const seq of [0, 1, 100, 127, 128, 200]) {
      const stored = ledger.leaf(seq)!
      expect(verifyNative(stored.signature!, leafSigMessage(stored.leafHash), s.key.publicKey)).toBe(true)
      for (const size of [seq + 1, 150, 201].filter((n) => n > seq)) {
        const p = ledger.inclusionProof(seq, size)
        expect(p.root).toEqual(mth(hashes.slice(0, size)))
        expect(verifyInclusion(seq, size, hashLeaf(Buffer.from(stored.body)), p.proof, p.root)).toEqual({ ok: true })
      }
    }
    for (const [m, n] of [
      [1, 201],
      [64, 201],
      [100, 150],
      [201, 201],
    ] as const) {
      expect(verifyConsistency(m, n, ledger.consistencyProof(m, n), ledger.root(m), ledger.root(n))).toEqual({ ok: true })
    }
    await ledger.close()
  })

  it('survives a reopen with the same root, chain and signer resolution', async () => {
    const s = certifiedSession()
    const first = openWith(s)
    await first.append(sessionDraft(s))
    for (let i = 0; i < 10; i++) await first.append(decisionDraft(s.id, 'software', i))
    const root = first.root()
    first.checkpoint(s.key, s.id)
    await first.close()
    const second = openWith(s)
    expect(second.size()).toBe(11)
    expect(second.root()).toEqual(root)
    const next = await second.append(decisionDraft(s.id, 'software', 99))
    expect(next.seq).toBe(11)
    expect(next.prevLeafHash).toBe(second.leaf(10)!.leafHash.toString('hex'))
    const report = verifyLedger({ leaves: allLeaves(second), checkpoints: second.store.checkpoints(), trustedHostKeys: trustOf(s), verify: verifyNative })
    expect(report).toMatchObject({ ok: true, treeSize: 12, counts: { signed: 12, sessions: 1, checkpoints: 1 } })
    await second.close()
  })

  it('rejects an append it cannot sign or encode, without consuming a seq', async () => {
    const ledger = new Ledger({ path })
    await expect(ledger.append(decisionDraft('ses_x', 'software', 1))).rejects.toThrow(/no signing key/)
    await expect(ledger.append({ ...decisionDraft('ses_x', 'unattested', 1), at: Number.NaN })).rejects.toThrow(/safe integers/)
    const ok = await ledger.append(decisionDraft('ses_x', 'unattested', 2))
    expect(ok.seq).toBe(0)
    expect(ok.signature).toBeUndefined()
    await ledger.close()
  })

  it('serves a proof any RFC 6962 verifier accepts through the stateless tuple check', async () => {
    const s = certifiedSession()
    const ledger = openWith(s)
    await ledger.append(sessionDraft(s))
    await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.append(decisionDraft(s.id, 'software', i))))
    const stored = ledger.leaf(13)!
    const p = ledger.inclusionProof(13)
    const tuple = {
      leaf: Buffer.from(stored.body).toString('base64'),
      seq: 13,
      tree_size: p.treeSize,
      proof: p.proof.map((h) => h.toString('base64')),
      root: p.root.toString('base64'),
      leaf_sig: stored.signature!.toString('base64'),
      session_public_key: s.key.publicKey.toString('base64'),
    }
    expect(verifyTuple(tuple, verifyPortable)).toMatchObject({ valid: true, checks: { leaf: 'ok', inclusion: 'ok', signature: 'ok' } })
    expect(verifyTuple({ ...tuple, seq: 12 }, verifyNative)).toMatchObject({ valid: false, reason: expect.stringMatching(/^leaf: leaf names seq 13/) })
    const flipped = Buffer.from(stored.body.replace('"tu_', '"tX_')).toString('base64')
    expect(verifyTuple({ ...tuple, leaf: flipped }, verifyNative)).toMatchObject({ valid: false, checks: { inclusion: expect.stringMatching(/root mismatch/) } })
    expect(verifyTuple({ ...tuple, root: 'not base64!' }, verifyNative).valid).toBe(false)
    expect(verifyTuple({ ...tuple, proof: [...tuple.proof, tuple.root] }, verifyNative).valid).toBe(false)
    await ledger.close()
  })
})

describe('SQLite ledger proofs against a brute-force tree (property)', () => {
  it('every inclusion and consistency proof from the stored tree verifies against MTH of the stored leaves', async () => {
    const { default: fc } = await import('fast-check')
    const s = certifiedSession()
    const ledger = openWith(s)
    await ledger.append(sessionDraft(s))
    await Promise.all(Array.from({ length: 150 }, (_, i) => ledger.append(decisionDraft(s.id, 'software', i))))
    const hashes = ledger.entries(-1, 1000).map((l) => l.leafHash)
    fc.assert(
      fc.property(fc.integer({ min: 1, max: hashes.length }), fc.nat(), fc.nat(), (size, a, b) => {
        const seq = a % size
        const root = mth(hashes.slice(0, size))
        const p = ledger.inclusionProof(seq, size)
        expect(p.root).toEqual(root)
        expect(verifyInclusion(seq, size, hashes[seq]!, p.proof, root).ok).toBe(true)
        const from = 1 + (b % size)
        expect(verifyConsistency(from, size, ledger.consistencyProof(from, size), mth(hashes.slice(0, from)), root).ok).toBe(true)
      }),
      { numRuns: 200 },
    )
    await ledger.close()
  })
})
