/**
 * What `svc daemon` says when SQLite finds a database of `$SVC_HOME` corrupt at start: SQLite's own message
 * ("database disk image is malformed") names no file. Only on that failure, each database is checked read-only
 * (`PRAGMA quick_check`) and the broken ones are named with what to do. Nothing is repaired, checkpointed or
 * truncated here: the files stay as found, for a backup to be compared with.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

// SQLITE_CORRUPT and SQLITE_NOTADB (the primary code, the low byte of an extended one).
const CORRUPT_CODES = new Set([11, 26])

export function isCorruptDatabase(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown } | undefined
  return e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number' && CORRUPT_CODES.has(e.errcode & 0xff)
}

/** The databases of `home` that fail a read-only quick_check, each with SQLite's first findings. */
export function corruptDatabases(home: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(home).filter((n) => n.endsWith('.db'))) {
    const path = join(home, name)
    try {
      const db = new DatabaseSync(path, { readOnly: true })
      try {
        const found = (db.prepare('PRAGMA quick_check(3)').all() as { quick_check: string }[]).map((r) => r.quick_check)
        if (found.join() !== 'ok') out.push(`${path} (${found.join('; ')})`)
      } finally {
        db.close()
      }
    } catch (err) {
      out.push(`${path} (${(err as Error).message})`)
    }
  }
  return out
}

/** The start error for a corrupt database: which file, and that nothing was changed. */
export function corruptDatabaseMessage(home: string, err: Error): string {
  const found = corruptDatabases(home)
  const which = found.length > 0 ? found.join(', ') : `a database under ${home} (${err.message})`
  return `the daemon does not start: ${which} is corrupt. Nothing was repaired or truncated. Restore it from a backup (\`svc ledger verify\` checks a ledger.db), or move it away on purpose (a ledger.db: then \`svc daemon --new-ledger\`)`
}
