/**
 * The unsigned-leaf rule (verify-sessions.ts), leaf by leaf: which leaves may carry signer "none" or
 * "unattested", and the restart, rotation and idle boundaries after which a session can no longer sign.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { certifiedSession, decisionDraft, sessionDraft, tempDir, type TestSession } from '../testing/ledger-fixtures.ts'
import type { LedgerVerdict } from '../core/types.ts'
import { verifyNative } from '../core/ledger/ed25519.ts'
import { SqliteLedger } from '../core/ledger/ledger.ts'
import { leafSignerFor } from '../core/ledger/leaf.ts'
import type { LeafDraft } from '../core/ledger/leaf.ts'
import { SESSION_IDLE_MS } from './verify-sessions.ts'
import { verifyLedger } from './verify-ledger.ts'
import { DEFAULT_IDLE_MS } from '../core/sessions/store.ts'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const path = () => join(tmp.dir, `l-${Math.random()}.db`)

function problems(ledger: SqliteLedger, s: TestSession): string[] {
  const leaves = ledger.entries(-1, 10_000).map((l) => ({ seq: l.seq, body: l.body, sig: l.signature, leafHash: l.leafHash }))
  return [...verifyLedger({ leaves, trustedHostKeys: [{ public_key: s.hostKey.publicKey.toString('base64'), signer: s.signer }], verify: verifyNative }).problems]
}

const unsigned = (sessionId: string, verdict: LedgerVerdict, at = Date.now(), kind: LeafDraft['kind'] = 'decision'): LeafDraft => ({
  ...decisionDraft(sessionId, 'none', 1, at),
  kind,
  verdict,
})

async function withSession(): Promise<{ ledger: SqliteLedger; s: TestSession; file: string; t0: number }> {
  const s = certifiedSession()
  const file = path()
  const ledger = new SqliteLedger({ path: file })
  const t0 = Date.now()
  await ledger.append(sessionDraft(s, t0), leafSignerFor(s.key))
  await ledger.append(decisionDraft(s.id, 'software', 1, t0), leafSignerFor(s.key))
  return { ledger, s, file, t0 }
}

describe('signer "none"', () => {
  it('is allowed for refusals and outcome rows of a session the ledger does not know', async () => {
    const { ledger, s } = await withSession()
    await ledger.append(unsigned('ses_unknown', 'deny'))
    await ledger.append(unsigned('', 'ran', Date.now(), 'outcome'))
    expect(problems(ledger, s)).toEqual([])
    await ledger.close()
  })

  it.each(['allow', 'monitor_alert'] as const)('never for a %s, whatever the session', async (verdict) => {
    const { ledger, s } = await withSession()
    await ledger.append(unsigned('ses_unknown', verdict))
    expect(problems(ledger, s)).toEqual([`seq 2: unsigned decision leaf with verdict ${verdict}: only refusals, outcome rows and control records may be unsigned (signer none)`])
    await ledger.close()
  })

  it('not for a session whose certificate is valid and which signed moments before', async () => {
    const { ledger, s } = await withSession()
    await ledger.append(unsigned(s.id, 'deny'))
    expect(problems(ledger, s).join('\n')).toMatch(/^seq 2: unsigned refusal for session ses_\w+, whose certificate was valid and which had signed \d+ s before/)
    await ledger.close()
  })

  it('for that session once it has been idle for the idle window, or after a daemon start', async () => {
    const { ledger, s, file, t0 } = await withSession()
    await ledger.append(unsigned(s.id, 'deny', t0 + SESSION_IDLE_MS))
    expect(problems(ledger, s)).toEqual([])
    await ledger.close()
    const reopened = new SqliteLedger({ path: file, daemon: {} })
    expect(reopened.leaf(3)!.leaf).toMatchObject({ type: 'ledger', verdict: 'ledger_opened', signer: 'none' })
    await reopened.append(unsigned(s.id, 'deny'))
    expect(problems(reopened, s)).toEqual([])
    await reopened.close()
  })

  it("uses the daemon's idle window", () => {
    expect(SESSION_IDLE_MS).toBe(DEFAULT_IDLE_MS)
  })
})

describe('signer "unattested"', () => {
  const created = (id: string): LeafDraft => ({ ...decisionDraft(id, 'unattested', 0), kind: 'session', verdict: 'session_created', tool: '', source: 'cli' })

  it('is allowed only for a session whose own creation leaf says unattested', async () => {
    const { ledger, s } = await withSession()
    await ledger.append(created('ses_u'))
    await ledger.append({ ...decisionDraft('ses_u', 'unattested', 1), verdict: 'allow' })
    expect(problems(ledger, s)).toEqual([])
    await ledger.append({ ...decisionDraft(s.id, 'unattested', 2), verdict: 'allow' })
    await ledger.append({ ...decisionDraft('ses_nobody', 'unattested', 4), verdict: 'allow' })
    expect(problems(ledger, s)).toEqual([
      `seq 4: unattested leaf, but session ${s.id} was created software`,
      'seq 5: unattested leaf, but session ses_nobody has no unattested creation leaf before it',
    ])
    await ledger.close()
  })
})
