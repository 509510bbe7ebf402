/**
 * The ledger's high-water mark, kept outside ledger.db, checkpoints.log and `$SVC_HOME`: beside the ledger marker
 * (`$XDG_STATE_HOME/svc/ledgers/<hash of the home>.watermark.json`, else `$SVC_HOME/ledger-watermark.json`), the
 * size and root of the newest checkpoint the daemon signed and committed. A clean cut of the ledger's
 * tail (leaves, checkpoint rows and the checkpoint log's tail together) leaves every file self-consistent; this
 * record, and the sizes witnesses cosigned (witness-state.json), do not shrink with it. The daemon refuses to start
 * below either (or on another root at that size), and `svc ledger verify` fails on it. It raises the bar for a
 * program running as the same user (it must find and rewrite this file too); witnesses and an off-host copy are
 * what an attacker on the machine cannot rewrite.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ledgerMarkerPath, writePrivateFile } from '../../core/index.ts'
import { readWitnessState } from './state.ts'

export const WATERMARK_FILE = 'ledger-watermark.json'

/** Where the watermark of `home` lives (beside the ledger marker when the environment names a state directory). */
export function watermarkPath(env: NodeJS.ProcessEnv, home: string): string {
  const marker = ledgerMarkerPath(env, home)
  return marker ? marker.replace(/\.json$/, '.watermark.json') : join(home, WATERMARK_FILE)
}

export interface Watermark {
  readonly origin: string
  readonly tree_size: number
  /** Base64 root at that size. */
  readonly root: string
}

export function readWatermark(path: string, origin: string): Watermark | undefined {
  if (!existsSync(path)) return undefined
  let doc: Watermark
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as Watermark
  } catch (err) {
    throw new Error(`${path} is not readable JSON (${(err as Error).message}); it records the ledger's signed size, so it is not ignored`)
  }
  if (doc.origin !== origin) return undefined
  if (!Number.isSafeInteger(doc.tree_size) || doc.tree_size < 0 || typeof doc.root !== 'string') throw new Error(`${path} is malformed`)
  return doc
}

export function writeWatermark(path: string, mark: Watermark): void {
  writePrivateFile(path, `${JSON.stringify(mark)}\n`)
}

/**
 * What is wrong with a ledger of `size` leaves (`rootAt` its root at a smaller size) against the records kept
 * outside it: the watermark and each witness's cosigned size (`rootAt` answers '' where it cannot tell). Empty when nothing is.
 */
export function belowRecords(home: string, markPath: string, origin: string, size: number, rootAt: (treeSize: number) => string): string[] {
  const problems: string[] = []
  const mark = readWatermark(markPath, origin)
  if (mark && size < mark.tree_size) problems.push(`the ledger has ${size} leaves, but this daemon signed a checkpoint of ${mark.tree_size} (${markPath}): its tail was cut`)
  else if (mark && mark.tree_size > 0 && rootAt(mark.tree_size) !== '' && rootAt(mark.tree_size) !== mark.root)
    problems.push(`the ledger's root at size ${mark.tree_size} is not the one this daemon signed (${markPath}): its history was rewritten`)
  let state
  try {
    state = readWitnessState(home, origin)
  } catch {
    return problems
  }
  for (const [id, r] of Object.entries(state.witnesses)) {
    if (r.cosignature === '' || r.tree_size <= size) continue
    problems.push(`the ledger has ${size} leaves, but witness ${id} cosigned a checkpoint of ${r.tree_size}: its tail was cut`)
  }
  return problems
}
