/**
 * Tampering with a stored ledger: the in-memory verifier and the threaded one (`svc ledger verify`) both find
 * each change, and a daemon refuses to open a ledger whose tree no longer matches its checkpoint. One signed
 * ledger of 31 leaves and a checkpoint is built for the file; every test tampers with its own copy.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { certifiedSession, decisionDraft, sessionDraft, tempDir } from '../testing/ledger-fixtures.ts'
import { verifyNative } from '../core/ledger/ed25519.ts'
import { SqliteLedger as Ledger } from '../core/ledger/ledger.ts'
import { leafSignerFor } from '../core/ledger/leaf.ts'
import { LedgerStore } from '../core/ledger/store.ts'
import { verifyLedger } from './verify-ledger.ts'
import type { TrustedHostKey } from './verify-sessions.ts'
import { verifyLedgerDatabase } from './verify-parallel.ts'

const s = certifiedSession()
const trust: TrustedHostKey[] = [{ public_key: s.hostKey.publicKey.toString('base64'), signer: s.signer }]
let template: ReturnType<typeof tempDir>

beforeAll(async () => {
  template = tempDir()
  const ledger = new Ledger({ path: join(template.dir, 'ledger.db') })
  const sign = leafSignerFor(s.key)
  await ledger.append(sessionDraft(s), sign)
  await Promise.all(Array.from({ length: 30 }, (_, i) => ledger.append(decisionDraft(s.id, 'software', i), sign)))
  ledger.checkpoint(s.key, s.id)
  await ledger.close()
  // The append-only triggers go, so the tests can do what an attacker with the file could.
  const db = new DatabaseSync(join(template.dir, 'ledger.db'))
  for (const t of ['leaves', 'nodes', 'checkpoints']) db.exec(`DROP TRIGGER ${t}_no_update; DROP TRIGGER ${t}_no_delete;`)
  db.close()
})
afterAll(() => template?.cleanup())

/** A copy of the populated ledger (database and checkpoints.log) for one test, opened for tampering. */
function populated(): { path: string; db: DatabaseSync } {
  const tmp = tempDir()
  onTestFinished(() => tmp.cleanup())
  cpSync(template.dir, tmp.dir, { recursive: true })
  const path = join(tmp.dir, 'ledger.db')
  return { path, db: new DatabaseSync(path) }
}

function report(path: string, trusted: readonly TrustedHostKey[] = trust) {
  const store = new LedgerStore(path, { readOnly: true })
  try {
    const leaves = [...store.allLeaves()].map((l) => ({ seq: l.seq, body: l.body, sig: l.sig, leafHash: l.leafHash }))
    return verifyLedger({ leaves, checkpoints: store.checkpoints(), trustedHostKeys: trusted, verify: verifyNative, storedNode: store.findNode })
  } finally {
    store.close()
  }
}

const threaded = (path: string, rangeLevel: number) => verifyLedgerDatabase({ path, trustedHostKeys: trust, threads: 2, rangeLevel })

describe('verifyLedger detects tampering', () => {
  it('passes untouched, fails with an untrusted or wrong-kind host key', () => {
    const { path, db } = populated()
    db.close()
    expect(report(path).ok).toBe(true)
    expect(report(path, []).problems.join('\n')).toMatch(/untrusted host key/)
    expect(report(path, [{ public_key: s.hostKey.publicKey.toString('base64'), signer: 'os_keychain' }]).problems.join('\n')).toMatch(/trusted for os_keychain/)
  })

  it.each([
    ['a byte of a leaf body', "UPDATE leaves SET body = replace(body, 'tu_', 'tX_') WHERE seq = 9", /seq 9: stored leaf hash does not match/],
    ['a stored node', 'UPDATE nodes SET hash = zeroblob(32) WHERE level = 0 AND idx = 3', /stored node \(0, 3\) differs/],
    ['a signature byte', 'UPDATE leaves SET sig = zeroblob(64) WHERE seq = 4', /seq 4: leaf signature does not verify/],
    [
      'the session certificate',
      'UPDATE leaves SET body = replace(body, \'"expires_at_ms":\', \'"expires_at_ms":1\') WHERE seq = 0',
      /session certificate .* host signature does not verify|leaf hash/,
    ],
    ['the last leaf (truncation)', 'DELETE FROM leaves WHERE seq = 30', /checkpoint at size 31: the ledger has only 30 leaves/],
    [
      'a leaf re-serialised out of JCS form',
      'UPDATE leaves SET body = replace(body, \'{"monitor_match":\', \'{ "monitor_match":\') WHERE seq = 7',
      /seq 7: leaf bytes are not canonical JCS/,
    ],
    ['a stored inner node', 'UPDATE nodes SET hash = zeroblob(32) WHERE level = 2 AND idx = 5', /stored node \(2, 5\) differs/],
  ])('detects a change to %s, in memory and with verifier threads', async (_what, sql, expected) => {
    const { path, db } = populated()
    db.exec(sql)
    db.close()
    const r = report(path)
    expect(r.ok).toBe(false)
    expect(r.problems.join('\n')).toMatch(expected)
    // One range of 4,096 (a single thread) and ranges of 4 leaves (both threads), verified side by side.
    for (const r of await Promise.all([12, 2].map((rangeLevel) => threaded(path, rangeLevel)))) {
      expect(r.ok).toBe(false)
      expect(r.problems.join('\n')).toMatch(expected)
    }
  })

  it('gives the same verdict and root with ranges of 4 leaves, checking the nodes above the ranges', async () => {
    const { path, db } = populated()
    const whole = report(path)
    for (const r of await Promise.all([0, 2, 3].map((rangeLevel) => threaded(path, rangeLevel)))) {
      expect(r).toMatchObject({ ok: true, root: whole.root, treeSize: 31, counts: whole.counts })
    }
    db.exec('UPDATE nodes SET hash = zeroblob(32) WHERE level = 4 AND idx = 0')
    db.close()
    const r = await threaded(path, 2)
    expect(r.problems.join('\n')).toMatch(/stored node \(4, 0\) differs/)
  })

  it('refuses to open a ledger whose stored tree no longer matches its checkpoint, or that lost leaves', () => {
    const { path, db } = populated()
    db.exec('UPDATE nodes SET hash = zeroblob(32) WHERE level = 4 AND idx = 0')
    expect(() => new Ledger({ path })).toThrow(/does not match the checkpoint/)
    db.exec('DROP TRIGGER IF EXISTS leaves_no_delete')
    db.exec('DELETE FROM leaves WHERE seq = 30')
    db.close()
    expect(() => new Ledger({ path })).toThrow(/fewer than its checkpoint/)
  })
})
