/**
 * One daemon per svc home. Two daemons on one home both append to its ledger (seen: `UNIQUE constraint failed:
 * leaves.seq`, then every call refused), so a daemon holds an exclusive SQLite lock on `$SVC_HOME/daemon.lock` for as
 * long as it runs: the OS drops the lock when the process ends, however it ends, so a crash leaves nothing stale.
 */
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

export interface HomeLock {
  release(): void
}

export function lockHome(home: string): HomeLock {
  const path = join(home, 'daemon.lock')
  const db = new DatabaseSync(path)
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (since TEXT)')
  } catch (err) {
    db.close()
    const busy = /locked|busy/i.test((err as Error).message)
    throw new Error(
      busy
        ? `another svc daemon is already running on ${home} (it holds ${path}); stop it first (\`svc status\` shows its URL), or give this one its own --home`
        : `cannot lock ${path}: ${(err as Error).message}`,
    )
  }
  let held = true
  return {
    release() {
      if (!held) return
      held = false
      db.close()
    },
  }
}
