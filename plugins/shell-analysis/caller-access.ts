/**
 * Reading with exactly the caller's rights. A daemon under its own account (`svc daemon --user`) reads the
 * scripts, manifests and git config a command would run with its own uid, which may reach what the developer's
 * cannot (its own home, a file the developer was shut out of, a link planted to point there). Before the analysis
 * reads a file's text it asks whether the caller could: the search (x) bit of every directory on the way, along
 * the path as written and along its real path (so a link never leads where the caller could not go), and the read
 * (r) bit of the file, each by the owner, group or other class that applies to the caller, as the kernel picks it.
 * A refusal fails closed, naming the path (analyze.ts). Node has no SO_PEERCRED, so the caller is the account the
 * daemon serves (docs/system-daemon.md says why): `SVC_CALLER_USER`, else the owner of `SVC_USER_HOME`.
 */
import { execFileSync } from 'node:child_process'
import { realpathSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/** Whose rights reads are checked against: a uid and every group it holds. */
export interface Caller {
  readonly uid: number
  readonly gids: readonly number[]
}

const X = 0o1
const R = 0o4

/** Whether `caller` holds `bit` (R or X) on the file `stat` describes, by the class the kernel would apply. */
function holds(stat: { uid: number; gid: number; mode: number }, caller: Caller, bit: number): boolean {
  // Root reads anything and searches any directory (the only kind searched here).
  if (caller.uid === 0) return true
  const shift = stat.uid === caller.uid ? 6 : caller.gids.includes(stat.gid) ? 3 : 0
  return ((stat.mode >> shift) & bit) !== 0
}

/** Whether `caller` may search every directory from / down to `dir` (which exists and is resolved). */
function maySearch(dir: string, caller: Caller): boolean {
  for (let d = dir; ; d = dirname(d)) {
    const stat = statSync(d, { throwIfNoEntry: false })
    if (stat && !holds(stat, caller, X)) return false
    if (d === dirname(d)) return true
  }
}

/** The deepest existing ancestor of `path`, resolved (a missing file's directory still has to be reachable). */
function existingDir(path: string): string {
  for (let d = dirname(path); ; d = dirname(d)) {
    try {
      return realpathSync(d)
    } catch {
      if (d === dirname(d)) return d
    }
  }
}

/**
 * Whether `caller` could read `path`: true for a file that is not there (nothing is read) when its directory is
 * reachable; false when a directory on either way, or the file itself, is closed to the caller.
 */
export function callerMayRead(path: string, caller: Caller): boolean {
  const lexical = resolve(path)
  try {
    if (!maySearch(existingDir(lexical), caller)) return false
    let real: string
    try {
      real = realpathSync(lexical)
    } catch {
      // Missing: nothing to read. Anything else (EACCES for the daemon itself) is the daemon's own refusal (disk.ts).
      return true
    }
    if (!maySearch(dirname(real), caller)) return false
    const stat = statSync(real)
    return stat.isDirectory() || holds(stat, caller, R)
  } catch {
    return false
  }
}

/**
 * The caller of a daemon under its own account: `SVC_CALLER_USER` (set by `svc service install --system`), else
 * the owner of `SVC_USER_HOME`; undefined for a daemon that runs as the developer (its reads are theirs already).
 */
export function callerOf(env: Readonly<Record<string, string | undefined>>): Caller | undefined {
  if (!env.SVC_DAEMON_ACCOUNT) return undefined
  const name = env.SVC_CALLER_USER
  if (name) {
    if (!/^[a-z_][a-z0-9_-]*\$?$/i.test(name)) throw new Error(`SVC_CALLER_USER=${JSON.stringify(name)} is not a user name`)
    const id = (flag: string) => execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
    try {
      return { uid: Number(id('-u')), gids: id('-G').split(/\s+/).map(Number) }
    } catch {
      throw new Error(`SVC_CALLER_USER=${name}: no such user`)
    }
  }
  if (!env.SVC_USER_HOME) return undefined
  const stat = statSync(env.SVC_USER_HOME, { throwIfNoEntry: false })
  if (!stat) throw new Error(`SVC_USER_HOME=${env.SVC_USER_HOME} is missing: the daemon cannot tell whose rights its reads must have`)
  let gids = [stat.gid]
  try {
    gids = execFileSync('id', ['-G', String(stat.uid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split(/\s+/)
      .map(Number)
  } catch {}
  return { uid: stat.uid, gids }
}
