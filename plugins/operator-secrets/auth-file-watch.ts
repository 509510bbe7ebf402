/**
 * Watches `$SVC_HOME/auth.json` (a digest of its bytes every second) and records each new content once: the daemon
 * keeps using the hash it read at start, so the change is refused, and the ledger says when it happened.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { sha256, type Engine } from '../../core/index.ts'

export const AUTH_WATCH_MS = 1000

function digest(path: string): string {
  try {
    return existsSync(path) ? sha256(readFileSync(path)) : 'absent'
  } catch {
    return 'unreadable'
  }
}

export function watchAuthFile(home: string, engine: Pick<Engine, 'recordEvent'>, log: Logger): { stop(): void } | undefined {
  if (!home) return undefined
  const path = join(home, 'auth.json')
  const atStart = digest(path)
  const recorded = new Set([atStart])
  const check = () => {
    const now = digest(path)
    if (recorded.has(now)) return
    recorded.add(now)
    const what = `${path} changed while the daemon runs (now ${now === 'absent' ? 'removed' : `sha256 ${now.slice(0, 16)}`}); refused: the daemon keeps the password hash it read at start`
    log.warn({ file: path }, 'operator password file changed; the change is refused until a restart')
    engine
      .recordEvent('config_changed', { file: path, what: 'operator password hash', action: 'refused until the daemon restarts' }, what)
      .catch((err: Error) => log.error({ err }, 'could not record the auth.json change'))
  }
  const timer = setInterval(check, AUTH_WATCH_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
