/**
 * Sessions recorded in the ledger, including those from before a restart (their keys are gone, so they
 * are shown as ended). Read from the session-event leaves, whose certificates carry the signed claims.
 */
import type { SqliteLedger } from '../ledger/ledger.ts'
import type { LeafObject } from '../ledger/leaf.ts'
import type { SessionBundle } from '../types.ts'

export interface RecordedSession {
  readonly bundle: SessionBundle
  readonly ledgerSeq: number
}

/** Every session-created/rotated leaf with a certificate, oldest first (optionally one session id). */
export function recordedSessions(ledger: SqliteLedger, sessionId?: string): RecordedSession[] {
  const rows = ledger.store.db
    .prepare(`SELECT seq, body FROM leaves WHERE verdict IN ('session_created', 'session_rotated') ${sessionId === undefined ? '' : 'AND session_id = ?'} ORDER BY seq`)
    .all(...(sessionId === undefined ? [] : [sessionId])) as { seq: number; body: string }[]
  const out: RecordedSession[] = []
  for (const row of rows) {
    if (Number(row.seq) >= ledger.size()) continue
    const leaf = JSON.parse(row.body) as LeafObject
    if (leaf.certificate) out.push({ bundle: leaf.certificate.bundle, ledgerSeq: Number(row.seq) })
  }
  return out
}
