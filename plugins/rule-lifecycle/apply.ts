/**
 * Apply and revert (SPEC "False-positive rules" 3-4): one atomic write of the target policy file, then a
 * ledger entry for it; if the entry cannot be recorded the file is put back, so no policy change goes
 * unrecorded. A journal of each apply (the file's previous bytes) lets `revert` restore it exactly, unless
 * the file changed since.
 */
import { existsSync, readFileSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { canonicalSha256, sha256, writePrivateFile, type Engine, type LedgerDraft, type LedgerEntry, type LedgerVerdict } from '../../core/index.ts'
import { refusal } from './case-event.ts'
import type { Validated } from './validate.ts'

/** What `revert` needs to restore an apply. */
export interface ApplyJournal {
  readonly apply_seq: number
  readonly event_seq: number
  readonly gate_id: string
  readonly replacement_id: string
  readonly path: string
  readonly before: string | null
  readonly after_sha256: string
  readonly reverted_by?: number
}

const journalPath = (home: string, seq: number) => join(home, 'false-positives', `apply-${seq}.json`)

/** Writes the planned edit after a last stale check, records it, and journals it; returns the ledger entry. */
export async function applyCase(engine: Engine, v: Validated, policyHash: string): Promise<LedgerEntry> {
  if (policyHash !== v.policyHash)
    throw refusal(409, 'stale_policy', 'the policy changed since this bundle was made (policy hash differs); make a new bundle with `svc false-positive <seq>`')
  const current = existsSync(v.edit.path) ? readFileSync(v.edit.path, 'utf8') : null
  if (current !== v.edit.before) throw refusal(409, 'stale_policy', `${v.edit.path} changed while the apply was prepared; try again`)
  const session = activeSession(engine)
  try {
    writePolicy(v.edit.path, v.edit.after)
  } catch (err) {
    throw refusal(422, 'target_unwritable', `the target policy file ${v.edit.path} cannot be written (${(err as Error).message}); nothing changed`)
  }
  let entry: LedgerEntry
  try {
    entry = await record(
      engine,
      session,
      'false_positive_applied',
      v.c.gate.id,
      v.c.leaf.seq,
      `false positive at seq ${v.c.leaf.seq}: gate ${v.c.gate.id} disabled in ${v.edit.path}, replaced by ${v.replacement.gate.id}`,
      {
        path: v.edit.path,
        before: v.edit.before === null ? null : sha256(v.edit.before),
        after: sha256(v.edit.after),
        replacement_id: v.replacement.gate.id,
      },
    )
  } catch (err) {
    restore(v.edit.path, v.edit.before)
    throw err
  }
  const journal: ApplyJournal = {
    apply_seq: entry.seq,
    event_seq: v.c.leaf.seq,
    gate_id: v.c.gate.id,
    replacement_id: v.replacement.gate.id,
    path: v.edit.path,
    before: v.edit.before,
    after_sha256: sha256(v.edit.after),
  }
  writePrivateFile(journalPath(engine.home, entry.seq), JSON.stringify(journal))
  engine.policy.reloadNow(v.c.payload.cwd ?? undefined, Date.now())
  return entry
}

/** Restores the file an apply changed, when it is still exactly as the apply left it. */
export async function revertApply(engine: Engine, applySeq: number, cwdHint?: string): Promise<{ entry: LedgerEntry; journal: ApplyJournal }> {
  const path = journalPath(engine.home, applySeq)
  if (!existsSync(path)) throw refusal(404, 'unknown_apply', `seq ${applySeq} is not a false-positive apply made by this daemon`)
  const journal = JSON.parse(readFileSync(path, 'utf8')) as ApplyJournal
  if (journal.reverted_by !== undefined) throw refusal(409, 'already_reverted', `the apply at seq ${applySeq} was already reverted (seq ${journal.reverted_by})`)
  const now = existsSync(journal.path) ? readFileSync(journal.path, 'utf8') : null
  if (now === null || sha256(now) !== journal.after_sha256)
    throw refusal(409, 'changed_since_apply', `${journal.path} changed since the apply at seq ${applySeq}; revert it by hand`)
  const session = activeSession(engine)
  restore(journal.path, journal.before)
  let entry: LedgerEntry
  try {
    entry = await record(
      engine,
      session,
      'false_positive_reverted',
      journal.gate_id,
      applySeq,
      `reverted the false-positive apply at seq ${applySeq}: gate ${journal.gate_id} active again in ${journal.path}, ${journal.replacement_id} removed`,
      {
        path: journal.path,
        before: journal.after_sha256,
        after: journal.before === null ? null : sha256(journal.before),
      },
    )
  } catch (err) {
    writePolicy(journal.path, now)
    throw err
  }
  writePrivateFile(path, JSON.stringify({ ...journal, reverted_by: entry.seq }))
  engine.policy.reloadNow(cwdHint ?? journal.path.replace(/\/[^/]*$/, ''), Date.now())
  return { entry, journal }
}

// A policy change must be recorded by a live session; without one nothing is changed.
function activeSession(engine: Engine) {
  const session = engine.sessions.current()
  if (!session || engine.sessions.status(session.id, Date.now()).state !== 'active') {
    throw refusal(503, 'no_session', 'no active session to record the policy change in the ledger: run `svc session create` (or rotate)')
  }
  return session
}

async function record(
  engine: Engine,
  session: NonNullable<ReturnType<Engine['sessions']['current']>>,
  verdict: LedgerVerdict,
  ruleId: string,
  parentSeq: number,
  reason: string,
  change: Record<string, unknown>,
): Promise<LedgerEntry> {
  const draft: LedgerDraft = {
    kind: 'control',
    sessionId: session.id,
    signer: session.signer,
    source: 'svc',
    tool: 'false-positive',
    verdict,
    monitorMatch: false,
    ruleId,
    toolUseId: '',
    policyTrace: [],
    payloadHash: canonicalSha256(change),
    reason,
    parentSeq,
    at: Date.now(),
  }
  return engine.record(draft, session)
}

function writePolicy(path: string, text: string): void {
  writeFileAtomic.sync(path, text, { fsync: true, ...(existsSync(path) ? {} : { mode: 0o644 }) })
}

function restore(path: string, before: string | null): void {
  if (before === null) {
    if (existsSync(path)) unlinkSync(path)
  } else writePolicy(path, before)
}
