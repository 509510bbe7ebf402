/**
 * The daemon's side of the watermark (watermark.ts): at start it refuses a ledger below what it recorded (or a
 * witness cosigned), naming the file to restore or the record to remove on purpose; then it follows the newest
 * committed checkpoint (each second, and at stop).
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
  const follow = () => {
    const latest = ledger.store.latestCheckpoint()
    if (!latest || latest.treeSize <= recorded) return
    writeWatermark(path, { origin: ledger.origin, tree_size: latest.treeSize, root: latest.root.toString('base64') })
    recorded = latest.treeSize
  }
  // A record that cannot be written now (a full disk, the ledger closed at stop) is tried again; it never stops the daemon.
  const tryFollow = () => {
    try {
      follow()
    } catch {
      // the last record written stands until the next second
    }
  }
  tryFollow()
  const timer = setInterval(tryFollow, 1000)
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      tryFollow()
    },
  }
}
