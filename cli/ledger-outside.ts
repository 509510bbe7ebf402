/**
 * What `svc ledger verify` checks against records kept outside ledger.db and checkpoints.log (a clean cut of the
 * ledger's tail together with its checkpoint rows and the log's tail leaves those consistent): the daemon's
 * watermark and each witness's cosigned size (a ledger below either FAILS), and how far the ledger is held
 * off this machine's reach, by witness cosignatures and the OTLP export's accepted cursor. Newest leaves that
 * neither covers are named in a WARNING: a cut of them is caught only by records on this machine.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { LedgerStore } from '../core/index.ts'
import { belowRecords, readWitnessState, watermarkPath } from '../plugins/witness/index.ts'

export interface OutsideReport {
  readonly problems: string[]
  readonly warnings: string[]
  /** Leaves held off the machine: the largest size a witness cosigned, and how many leaves the OTLP export shipped. */
  readonly coverage: { readonly witnessed: number; readonly shipped: number; readonly uncovered: { readonly from: number; readonly to: number } | null }
}

/** The largest `next_seq` any OTLP export cursor of this ledger (`$SVC_HOME/export/otlp-*.json`) records. */
function shippedLeaves(home: string, origin: string): number {
  const dir = join(home, 'export')
  if (!existsSync(dir)) return 0
  let shipped = 0
  for (const name of readdirSync(dir)) {
    if (!/^otlp-[0-9a-f]+\.json$/.test(name)) continue
    try {
      const doc = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { origin?: string; next_seq?: number }
      if (doc.origin === origin && Number.isSafeInteger(doc.next_seq)) shipped = Math.max(shipped, doc.next_seq!)
    } catch {
      // A damaged cursor covers nothing; the daemon names it when it starts.
    }
  }
  return shipped
}

export function outsideRecords(env: NodeJS.ProcessEnv, dbPath: string, treeSize: number): OutsideReport {
  const home = dirname(dbPath)
  const store = new LedgerStore(dbPath, { readOnly: true })
  let origin: string
  let roots: Map<number, string>
  try {
    origin = store.meta('origin') ?? ''
    roots = new Map(store.checkpoints().map((c) => [c.treeSize, c.root.toString('base64')]))
  } finally {
    store.close()
  }
  // The root at a size is known where the ledger still has a checkpoint of it; elsewhere only sizes are compared.
  const problems = belowRecords(home, watermarkPath(env, home), origin, treeSize, (n) => roots.get(n) ?? '')
  let witnessed = 0
  try {
    for (const r of Object.values(readWitnessState(home, origin).witnesses)) if (r.cosignature !== '') witnessed = Math.max(witnessed, Math.min(r.tree_size, treeSize))
  } catch {
    // witness-state.json unreadable: no witness coverage is claimed.
  }
  const shipped = Math.min(shippedLeaves(home, origin), treeSize)
  const held = Math.max(witnessed, shipped)
  const uncovered = held < treeSize ? { from: held, to: treeSize - 1 } : null
  const warnings = uncovered
    ? [
        held === 0
          ? `no witness cosignature and no off-host copy (OTLP export) covers this ledger: a clean cut of its newest leaves is caught only by records on this machine (SVC_WITNESS_POLICY, SVC_OTLP_ENDPOINT)`
          : `the newest leaves seq ${uncovered.from}..${uncovered.to} are covered by no witness cosignature and no off-host copy yet: a clean cut of them is caught only by records on this machine`,
      ]
    : []
  return { problems, warnings, coverage: { witnessed, shipped, uncovered } }
}
