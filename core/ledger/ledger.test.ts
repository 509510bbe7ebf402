import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { certifiedSession, decisionDraft, sessionDraft, tempDir, type TestSession } from '../testing/ledger-fixtures.ts'
import { verifyNative, verifyPortable } from './ed25519.ts'
import { leafSignerFor, SqliteLedger as Ledger, type LeafSigner } from './ledger.ts'
import { leafSigMessage, type LeafDraft } from './leaf.ts'
import type { LedgerEntry } from '../types.ts'
import { hashChildren, hashLeaf, splitPoint } from './merkle.ts'
import { verifyConsistency, verifyInclusion } from './proof-verify.ts'
import { LedgerStore } from './store.ts'
import { verifyLedger, type LeafRecord } from './verify-ledger.ts'
import { verifyLedgerDatabase } from './verify-parallel.ts'
import { verifyTuple } from './verify-tuple.ts'

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
    for (const [m, n] of [[1, 201], [64, 201], [100, 150], [201, 201]] as const) {
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

describe('verifyLedger detects tampering', () => {
  async function populated() {
    const s = certifiedSession()
    const ledger = openWith(s)
    await ledger.append(sessionDraft(s))
    await Promise.all(Array.from({ length: 30 }, (_, i) => ledger.append(decisionDraft(s.id, 'software', i))))
    ledger.checkpoint(s.key, s.id)
    await ledger.close()
    const db = new DatabaseSync(path)
    for (const t of ['leaves', 'nodes', 'checkpoints']) db.exec(`DROP TRIGGER ${t}_no_update; DROP TRIGGER ${t}_no_delete;`)
    return { s, db }
  }
  function report(s: TestSession, trust = trustOf(s)) {
    const store = new LedgerStore(path, { readOnly: true })
    try {
      const leaves = [...store.allLeaves()].map((l) => ({ seq: l.seq, body: l.body, sig: l.sig, leafHash: l.leafHash }))
      return verifyLedger({ leaves, checkpoints: store.checkpoints(), trustedHostKeys: trust, verify: verifyNative, storedNode: store.findNode })
    } finally {
      store.close()
    }
  }

  it('passes untouched, fails with an untrusted or wrong-kind host key', async () => {
    const { s, db } = await populated()
    db.close()
    expect(report(s).ok).toBe(true)
    expect(report(s, []).problems.join('\n')).toMatch(/untrusted host key/)
    expect(report(s, [{ public_key: s.hostKey.publicKey.toString('base64'), signer: 'os_keychain' }]).problems.join('\n')).toMatch(/trusted for os_keychain/)
  })

  it.each([
    ['a byte of a leaf body', "UPDATE leaves SET body = replace(body, 'tu_', 'tX_') WHERE seq = 9", /seq 9: stored leaf hash does not match/],
    ['a stored node', 'UPDATE nodes SET hash = zeroblob(32) WHERE level = 0 AND idx = 3', /stored node \(0, 3\) differs/],
    ['a signature byte', 'UPDATE leaves SET sig = zeroblob(64) WHERE seq = 4', /seq 4: leaf signature does not verify/],
    ['the session certificate', "UPDATE leaves SET body = replace(body, '\"expires_at_ms\":', '\"expires_at_ms\":1') WHERE seq = 0", /session certificate .* host signature does not verify|leaf hash/],
    ['the last leaf (truncation)', 'DELETE FROM leaves WHERE seq = 30', /checkpoint at size 31: the ledger has only 30 leaves/],
    ['a leaf re-serialised out of JCS form', "UPDATE leaves SET body = replace(body, '{\"monitor_match\":', '{ \"monitor_match\":') WHERE seq = 7", /seq 7: leaf bytes are not canonical JCS/],
    ['a stored inner node', 'UPDATE nodes SET hash = zeroblob(32) WHERE level = 2 AND idx = 5', /stored node \(2, 5\) differs/],
  ])('detects a change to %s, in memory and with verifier threads', async (_what, sql, expected) => {
    const { s, db } = await populated()
    db.exec(sql)
    db.close()
    const r = report(s)
    expect(r.ok).toBe(false)
    expect(r.problems.join('\n')).toMatch(expected)
    for (const rangeLevel of [12, 2]) {
      const threaded = await verifyLedgerDatabase({ path, trustedHostKeys: trustOf(s), threads: 2, rangeLevel })
      expect(threaded.ok).toBe(false)
      expect(threaded.problems.join('\n')).toMatch(expected)
    }
  })

  it('gives the same verdict and root with ranges of 4 leaves, checking the nodes above the ranges', async () => {
    const { s, db } = await populated()
    const whole = report(s)
    for (const rangeLevel of [0, 2, 3]) {
      const r = await verifyLedgerDatabase({ path, trustedHostKeys: trustOf(s), threads: 2, rangeLevel })
      expect(r).toMatchObject({ ok: true, root: whole.root, treeSize: 31, counts: whole.counts })
    }
    db.exec('UPDATE nodes SET hash = zeroblob(32) WHERE level = 4 AND idx = 0')
    db.close()
    const r = await verifyLedgerDatabase({ path, trustedHostKeys: trustOf(s), threads: 2, rangeLevel: 2 })
    expect(r.problems.join('\n')).toMatch(/stored node \(4, 0\) differs/)
  })

  it('refuses to open a ledger whose stored tree no longer matches its checkpoint, or that lost leaves', async () => {
    const { db } = await populated()
    db.exec('UPDATE nodes SET hash = zeroblob(32) WHERE level = 4 AND idx = 0')
    expect(() => new Ledger({ path })).toThrow(/does not match the checkpoint/)
    db.exec("DROP TRIGGER IF EXISTS leaves_no_delete")
    db.exec('DELETE FROM leaves WHERE seq = 30')
    db.close()
    expect(() => new Ledger({ path })).toThrow(/fewer than its checkpoint/)
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
