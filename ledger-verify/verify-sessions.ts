/**
 * The session table `svc ledger verify` checks leaves against, built from the ledger's event leaves (session
 * creations and rotations, ledger creation and daemon starts) in seq order, before any other leaf is read, so
 * ranges of leaves can then be checked independently (in parallel).
 *
 * Which leaves may be unsigned (the rule `unsignedLeafProblem` enforces):
 * - `signer: "unattested"`: only leaves of a session whose own creation leaf says unattested, while it lasts
 *   (not rotated out, no daemon start since). Such a session has no key: its leaves are unsigned by design.
 * - `signer: "none"`: only leaves that allow nothing — a `deny` decision, an outcome row (`ran`,
 *   `tool_errored`), a control record (an operator's switch, authorised outside the ledger), or the ledger's own `ledger_created` / `ledger_opened` leaves — and only when the session
 *   could not sign at that point: unknown to the ledger, past its certificate's expiry, rotated out, from before a
 *   daemon start (session keys live in memory only), or idle for the daemon's idle window since it last signed.
 * Anything else unsigned fails: without a key nobody can turn a signed leaf into an unsigned allow, and a
 * signed leaf of a live session cannot be swapped for an unsigned one.
 */
import type { SignerKind } from '../core/types.ts'
import { checkSessionCertificate } from '../core/trust/session-cert.ts'
import type { SignatureVerifier } from '../core/ledger/ed25519.ts'
import type { LeafObject } from '../core/ledger/leaf.ts'

/**
 * The daemon's default idle expiry (`DEFAULT_IDLE_MS` in core/sessions/store.ts): a session idle this long cannot
 * sign. A session leaf records the window its daemon used (`facts.idle_ms`, from SVC_SESSION_IDLE); older ones did not.
 */
export const SESSION_IDLE_MS = 30 * 60_000

/** What the ledger says about one session. */
export interface SessionFact {
  readonly signer: SignerKind
  readonly publicKey?: Uint8Array
  readonly notAfter: number
  /** Seq of its creation leaf. */
  readonly certSeq: number
  readonly certTs: number
  /** Seq of the leaf of the session that rotated it out (Infinity while none). */
  endedSeq: number
  /** The idle window its creation leaf records (SESSION_IDLE_MS when it records none). */
  readonly idleMs?: number
}

/** Sessions and daemon starts, by seq; structured-cloneable so verifier threads get a copy. */
export interface SessionTable {
  readonly sessions: Map<string, SessionFact>
  /** Seqs of `ledger_created` / `ledger_opened` leaves, ascending. */
  readonly starts: number[]
  /** Seqs of every event leaf (a leaf of type session or ledger anywhere else is a tampered index). */
  readonly eventSeqs: Set<number>
}

/** One event leaf as the pre-pass reads it. */
export interface EventRecord {
  readonly seq: number
  readonly body: string
}

/** A host key the verifier trusts, as `svc signer trust` records it. */
export interface TrustedHostKey {
  readonly public_key: string
  readonly signer: SignerKind
  /** A retired key still verifies certificates issued before its retirement, and none after. */
  readonly retired_at_ms?: number
}

/** Builds the table; certificate problems are reported with the seq of their leaf. */
export function buildSessionTable(
  events: Iterable<EventRecord>,
  trustedHostKeys: readonly TrustedHostKey[],
  verify: SignatureVerifier,
  problem: (text: string) => void,
): SessionTable {
  const trusted = new Map(trustedHostKeys.map((k) => [k.public_key, k]))
  const table: SessionTable = { sessions: new Map(), starts: [], eventSeqs: new Set() }
  for (const { seq, body } of events) {
    let leaf: LeafObject
    try {
      leaf = JSON.parse(body) as LeafObject
    } catch {
      continue // the range check reports it
    }
    table.eventSeqs.add(seq)
    const at = `seq ${seq}`
    if (leaf.type === 'ledger') {
      table.starts.push(seq)
      continue
    }
    if (leaf.type !== 'session') continue
    if (!leaf.certificate) {
      if (leaf.signer === 'unattested') table.sessions.set(leaf.session_id, { signer: 'unattested', notAfter: Infinity, certSeq: seq, certTs: leaf.ts_ms, endedSeq: Infinity })
      continue
    }
    const b = leaf.certificate.bundle
    if (b.session_id !== leaf.session_id) {
      problem(`${at}: certificate is for session ${b.session_id}, leaf names ${leaf.session_id}`)
      continue
    }
    const reason = checkSessionCertificate(leaf.certificate, verify)
    if (reason) {
      problem(`${at}: session certificate of ${b.session_id}: ${reason}`)
      continue
    }
    if (b.signer !== 'unattested') {
      const key = trusted.get(b.host_public_key!)
      if (key === undefined) {
        problem(`${at}: session ${b.session_id} is certified by an untrusted host key`)
        continue
      }
      if (key.signer !== b.signer) {
        problem(`${at}: host key is trusted for ${key.signer}, certificate claims ${b.signer}`)
        continue
      }
      if (key.retired_at_ms !== undefined && b.issued_at_ms > key.retired_at_ms) {
        problem(`${at}: session ${b.session_id} was certified after its host key was retired`)
        continue
      }
    }
    const rotated = b.rotates === undefined ? undefined : table.sessions.get(b.rotates)
    if (rotated && rotated.endedSeq === Infinity) rotated.endedSeq = seq
    const idle = Number(leaf.facts?.idle_ms)
    table.sessions.set(b.session_id, {
      signer: b.signer,
      notAfter: b.expires_at_ms,
      certSeq: seq,
      certTs: leaf.ts_ms,
      endedSeq: Infinity,
      ...(Number.isSafeInteger(idle) && idle > 0 ? { idleMs: idle } : {}),
      ...(b.session_public_key ? { publicKey: Buffer.from(b.session_public_key, 'base64') } : {}),
    })
  }
  return table
}

/** True when a daemon start lies after the session's creation and before `seq`: its key was gone. */
export function restartedSince(table: SessionTable, fact: SessionFact, seq: number): boolean {
  return table.starts.some((s) => s > fact.certSeq && s < seq)
}

/** An unsigned refusal whose session had a valid certificate: legitimate only if the session was idle by then. */
export interface IdleCheck {
  readonly seq: number
  readonly sessionId: string
  readonly ts: number
  /** When the session last signed earlier in the same range (undefined: look before the range). */
  readonly localLastSigned?: number
  /** The session's idle window (as its creation leaf records it). */
  readonly idleMs: number
}

/**
 * Checks an unsigned leaf against the rule above. Returns a problem, nothing, or an idle check the caller
 * resolves once it knows when the session last signed.
 */
export function unsignedLeafProblem(table: SessionTable, leaf: LeafObject, seq: number, lastSigned: number | undefined): string | IdleCheck | undefined {
  const fact = table.sessions.get(leaf.session_id)
  const known = fact !== undefined && fact.certSeq <= seq
  const live = known && seq <= fact.endedSeq && !restartedSince(table, fact, seq)
  if (leaf.signer === 'unattested') {
    if (!known || fact.signer !== 'unattested')
      return `unattested leaf, but session ${leaf.session_id} ${known ? `was created ${fact.signer}` : 'has no unattested creation leaf before it'}`
    return live ? undefined : `unattested leaf of session ${leaf.session_id} after it ended (rotated out or from before a daemon start)`
  }
  if (leaf.type === 'ledger') return leaf.session_id === '' ? undefined : 'ledger event leaf names a session'
  // Control leaves (an operator's guardrail switch, authorised outside the ledger) are records, not verdicts.
  const allowsNothing = (leaf.type === 'decision' && leaf.verdict === 'deny') || leaf.type === 'outcome' || (leaf.type as string) === 'control'
  if (!allowsNothing) return `unsigned ${leaf.type} leaf with verdict ${leaf.verdict}: only refusals, outcome rows and control records may be unsigned (signer none)`
  if (!live || fact.signer === 'unattested' || leaf.ts_ms > fact.notAfter) return undefined
  return { seq, sessionId: leaf.session_id, ts: leaf.ts_ms, idleMs: fact.idleMs ?? SESSION_IDLE_MS, ...(lastSigned === undefined ? {} : { localLastSigned: lastSigned }) }
}

/** Resolves an idle check: a problem unless the session had been idle for the idle window. */
export function idleProblem(check: IdleCheck, lastSigned: number): string | undefined {
  if (check.ts - lastSigned >= check.idleMs) return undefined
  return `seq ${check.seq}: unsigned refusal for session ${check.sessionId}, whose certificate was valid and which had signed ${Math.round((check.ts - lastSigned) / 1000)} s before (signer none is only for sessions that cannot sign)`
}
