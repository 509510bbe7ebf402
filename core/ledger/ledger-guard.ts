/**
 * What stops a daemon from silently starting a new ledger over one that existed. Evidence lives outside
 * ledger.db: `checkpoints.log` beside it, and a marker file outside `$SVC_HOME` (so deleting the whole home
 * is noticed too). At start, ledger.db must be the ledger that evidence names, at least as long as its last
 * signed checkpoint; otherwise the daemon refuses to start unless told `--new-ledger`, and a new ledger's
 * first leaf names what it replaced.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { writePrivateFile } from '../atomic-file.ts'
import { EngineError, ERR } from '../errors.ts'
import { lastCheckpointLogEntry } from './checkpoint-log.ts'
import type { LeafObject, ReplacedLedger } from './leaf.ts'
import type { LedgerStore } from './store.ts'

/** The flag that allows a new ledger where one existed. */
export const NEW_LEDGER_FLAG = '--new-ledger'

/** Where a daemon start looks for (and records) the ledger it serves. */
export interface LedgerGuardOptions {
  /** Marker file outside `$SVC_HOME` (see `ledgerMarkerPath`); none when the environment names no place. */
  readonly marker?: string
  /** `svc daemon --new-ledger`: start a new ledger even though evidence says one existed. */
  readonly allowNew?: boolean
}

interface Marker {
  readonly v: 1
  readonly ledger: string
  readonly origin: string
  readonly updated_ms: number
}

/**
 * The marker path for a home: `$XDG_STATE_HOME/svc/ledgers/<hash of the home path>.json`, else under
 * `$HOME/.local/state`; undefined when the environment names neither.
 */
export function ledgerMarkerPath(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const base = env.XDG_STATE_HOME || (env.HOME ? join(env.HOME, '.local', 'state') : undefined)
  if (!base) return undefined
  return join(base, 'svc', 'ledgers', `${createHash('sha256').update(resolve(home)).digest('hex').slice(0, 16)}.json`)
}

function readMarker(path: string | undefined): Marker | undefined {
  if (!path || !existsSync(path)) return undefined
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as Partial<Marker>
    return typeof m.origin === 'string' ? (m as Marker) : undefined
  } catch {
    return undefined
  }
}

/** What a start found: nothing to object to, or the ledger it must replace (only with allowNew). */
export type GuardVerdict = { readonly kind: 'ok' } | { readonly kind: 'replace'; readonly replaces: ReplacedLedger }

/**
 * Compares ledger.db (its origin, leaf count and first leaf) with the evidence outside it. Throws
 * LEDGER_BROKEN, naming the flag, when they disagree and a new ledger was not asked for (or cannot be made
 * because ledger.db still holds leaves).
 */
export function checkLedgerEvidence(store: LedgerStore, count: number, checkpointLog: string | undefined, opts: LedgerGuardOptions): GuardVerdict {
  const dbOrigin = store.meta('origin')
  const first = count > 0 ? (JSON.parse(store.leaf(0)!.body) as LeafObject) : undefined
  const replacedOrigin = first?.verdict === 'ledger_created' ? first.replaces?.origin : undefined
  const last = checkpointLog ? lastCheckpointLogEntry(checkpointLog) : undefined
  const marker = readMarker(opts.marker)
  let problem: string | undefined
  let replaces: ReplacedLedger | undefined
  if (last && last.origin === dbOrigin) {
    if (last.tree_size > count)
      problem = `ledger.db holds ${count} leaves but ${checkpointLog} has a signed checkpoint of this ledger at size ${last.tree_size}: leaves were removed`
  } else if (last && replacedOrigin !== last.origin) {
    problem = `ledger.db ${count === 0 ? 'is empty or new' : `is ledger ${dbOrigin}`}, but ${checkpointLog} ends with a signed checkpoint of ledger ${last.origin} at size ${last.tree_size}`
    replaces = { origin: last.origin, tree_size: last.tree_size, root: last.root }
  } else if (!last && marker && marker.origin !== dbOrigin && replacedOrigin !== marker.origin) {
    problem = `ledger.db ${count === 0 ? 'is empty or new' : `is ledger ${dbOrigin}`}, but ${opts.marker} records ledger ${marker.origin} for this home`
    replaces = { origin: marker.origin, tree_size: null, root: null }
  }
  if (problem === undefined) return { kind: 'ok' }
  if (opts.allowNew && count === 0 && replaces) return { kind: 'replace', replaces }
  const how =
    count === 0
      ? `restore ledger.db, or start a new ledger that records what it replaces with \`svc daemon ${NEW_LEDGER_FLAG}\``
      : 'restore the ledger.db that belongs here (a new ledger can only start from an absent or empty ledger.db)'
  throw new EngineError(ERR.LEDGER_BROKEN, `refusing to start: ${problem}; ${how}`)
}

/** Records (or updates) the marker naming the ledger this home serves. */
export function writeLedgerMarker(path: string | undefined, ledger: string, origin: string): void {
  if (!path || readMarker(path)?.origin === origin) return
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  writePrivateFile(path, JSON.stringify({ v: 1, ledger: resolve(ledger), origin, updated_ms: Date.now() } satisfies Marker))
}
