/**
 * Where the daemon mode comes from at start. The ledger is the record: every change is a `mode_changed`
 * operator leaf. state.db keeps the mode too, sealed (HMAC under the daemon's seal key) together with the
 * seq of the leaf that set it, so a row edited with `sqlite3` (or one that disagrees with the ledger) is
 * refused at start with a reason instead of silently turning the firewall into a monitor.
 */
import type { SqliteLedger } from '../ledger/ledger.ts'
import type { LeafObject } from '../ledger/leaf.ts'
import type { DisableSealer, SealedFacts } from '../policy/disable-seal.ts'
import type { Mode } from '../types.ts'

/** The mode row as state.db stores it. */
export interface ModeRow {
  readonly mode: string
  /** Seq of the ledger leaf that set it, and the seal over both; absent in a row svc never sealed. */
  readonly seq?: number
  readonly seal?: string
}

/** The latest mode change the ledger records. */
export interface LedgerMode {
  readonly mode: Mode
  readonly seq: number
}

/** Thrown at start when state.db's mode cannot be trusted; the daemon refuses to start. */
export class ModeMismatchError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ModeMismatchError'
  }
}

const facts = (mode: string, seq: number): SealedFacts => ({ domain: 'svc/mode/v1', mode, seq })

export function sealMode(sealer: DisableSealer, mode: Mode, seq: number): ModeRow {
  return { mode, seq, seal: sealer.seal(facts(mode, seq)) }
}

/** The latest `mode_changed` leaf of the ledger, if any. */
export function latestLedgerMode(ledger: SqliteLedger): LedgerMode | undefined {
  const row = ledger.store.db.prepare("SELECT seq, body FROM leaves WHERE verdict = 'mode_changed' AND seq < ? ORDER BY seq DESC LIMIT 1").get(ledger.size()) as
    | { seq: number; body: string }
    | undefined
  if (!row) return undefined
  const leaf = JSON.parse(row.body) as LeafObject
  return { mode: leaf.facts?.to === 'monitor' ? 'monitor' : 'firewall', seq: Number(row.seq) }
}

const REMEDY =
  "if the ledger is right, delete the row (`DELETE FROM settings WHERE key = 'mode'`): the daemon then starts in firewall mode, and `svc mode` changes it with operator rights"

/**
 * The mode to start in. Without a sealed row the daemon starts in firewall mode (never looser than the
 * record can prove); a row that is unsealed, badly sealed or not the ledger's latest change is refused.
 */
export function startMode(row: ModeRow | undefined, fromLedger: LedgerMode | undefined, sealer: DisableSealer, where: string): Mode {
  if (!row) return 'firewall'
  if (row.seq === undefined || row.seal === undefined) {
    if (row.mode === 'firewall' && !fromLedger) return 'firewall'
    throw new ModeMismatchError(`${where} says mode "${row.mode}" without the daemon's seal: it was written outside svc, so the daemon will not start in it; ${REMEDY}`)
  }
  if (!sealer.verify(facts(row.mode, row.seq), row.seal)) {
    throw new ModeMismatchError(`${where} mode row ("${row.mode}", ledger seq ${row.seq}) does not carry a valid seal: it was changed outside svc; ${REMEDY}`)
  }
  if (!fromLedger || fromLedger.seq !== row.seq || fromLedger.mode !== row.mode) {
    const ledgerSays = fromLedger ? `"${fromLedger.mode}" (seq ${fromLedger.seq})` : 'no mode change'
    throw new ModeMismatchError(`${where} says mode "${row.mode}" (seq ${row.seq}) but the ledger's latest mode entry says ${ledgerSays}; ${REMEDY}`)
  }
  return row.mode === 'monitor' ? 'monitor' : 'firewall'
}
