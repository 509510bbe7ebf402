/**
 * The daemon and the renewer as `svc init` starts them where no service manager runs: detached processes
 * (their own session, logs in `$SVC_HOME/logs/`), found again by pid, stopped by pid. Also the waits init
 * needs: the daemon answering, a session active.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import type { CurrentSession } from '../agent/renewer.ts'
import { callDaemon } from '../http.ts'

export const logDir = (home: string) => join(home, 'logs')

/** Starts `svc <args>` detached from this terminal, output appended to `logs/<name>.log`; `input` goes to its stdin. */
export function startDetached(svcBin: string, name: 'daemon' | 'agent', args: readonly string[], home: string, env: NodeJS.ProcessEnv, input?: string): number {
  mkdirSync(logDir(home), { recursive: true, mode: 0o700 })
  const log = openSync(join(logDir(home), `${name}.log`), 'a', 0o600)
  const child = spawn(svcBin, [...args], { env, detached: true, stdio: [input === undefined ? 'ignore' : 'pipe', log, log] })
  if (input !== undefined) child.stdin!.end(input)
  child.unref()
  return child.pid!
}

export function alive(pid: number | undefined): boolean {
  if (!pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** SIGTERM, then up to 10 s for the process to go (SIGKILL after). */
export async function stopPid(pid: number | undefined): Promise<boolean> {
  if (!alive(pid)) return false
  process.kill(pid!, 'SIGTERM')
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50))
  if (alive(pid)) process.kill(pid!, 'SIGKILL')
  return true
}

export async function currentSession(url: string): Promise<CurrentSession | undefined> {
  return callDaemon<CurrentSession>(url, '/v1/sessions/current', { timeoutMs: 3_000 }).catch(() => undefined)
}

/** Polls until `probe` gives a value or `ms` pass. */
export async function waitUntil<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined || Date.now() > deadline) return value
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** A renewer the daemon heard from in the last minute (its long poll is 25 s). */
export function renewerRunning(cur: CurrentSession | undefined): boolean {
  return !!cur?.renewer && Date.parse(cur.now) - Date.parse(cur.renewer.seen_at) < 60_000
}
