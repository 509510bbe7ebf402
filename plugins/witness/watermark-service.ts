/**
 * The daemon's side of the watermark (watermark.ts): at start it refuses a ledger below what it recorded (or a
 * witness cosigned), naming the file to restore or the record to remove on purpose; then it records each
 * checkpoint before the ledger signs it (it used to follow them each second: a kill in that second, or the
 * checkpoint signed at stop, left a signed size the record did not hold).
 */
import type { Ledger } from '../../core/index.ts'
import { belowRecords, readWatermark, watermarkPath, writeWatermark } from './watermark.ts'

export function startWatermark(home: string, env: NodeJS.ProcessEnv, ledger: Ledger): { stop(): void } | undefined {
  if (!home) return undefined
  const path = watermarkPath(env, home)
  const problems = belowRecords(home, path, ledger.origin, ledger.size(), (n) => ledger.root(n).toString('base64'))
  if (problems.length > 0)
    throw new Error(
      `the ledger was cut short, so the daemon does not start: ${problems.join('; ')}. Restore the cut leaves from a backup (\`svc ledger verify\` checks them); to accept the shorter ledger on purpose, remove ${path} (and witness-state.json)`,
    )
  let recorded = readWatermark(path, ledger.origin)?.tree_size ?? -1
  const record = (treeSize: number, root: Buffer) => {
    if (treeSize <= recorded) return
    writeWatermark(path, { origin: ledger.origin, tree_size: treeSize, root: root.toString('base64') })
    recorded = treeSize
  }
  // The newest checkpoint already in the ledger, then each one before it is signed: a checkpoint that cannot be
  // recorded is not signed (the next tick tries again), so none ever reaches checkpoints.log, a witness or a
  // client ahead of this record. It stays on after stop: the daemon signs its last checkpoint as the ledger closes.
  const latest = ledger.store.latestCheckpoint()
  try {
    if (latest) record(latest.treeSize, latest.root)
  } catch {
    // not writable now (a full disk): the next checkpoint writes it, or is not signed
  }
  ledger.beforeSign = record
  return { stop() {} }
}
