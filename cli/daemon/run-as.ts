/**
 * `svc daemon --user <name>`: the daemon as its own system user, out of the developer's reach by the OS. Started
 * as root (by a system service manager, or by hand where none runs), it makes its home that user's, then drops
 * to the user for good (supplementary groups, group, user: in that order, so nothing of root's is kept) before it
 * opens a file, a port or a thread. Code running as the developer can then neither read its keys, rewrite its
 * operator secrets or policy, cut its ledger, nor signal it. Started as that user already, it changes nothing.
 */
import { execFileSync } from 'node:child_process'
import { accessSync, chmodSync, chownSync, constants, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DEFAULT_HOOK_SOCKET } from '../../plugins/hook-socket/index.ts'

export interface SystemUser {
  readonly name: string
  readonly uid: number
  readonly gid: number
  readonly home: string
}

/** The account from the system's user database (NSS, through getent: LDAP and sssd users too). */
export function lookupUser(name: string): SystemUser {
  if (!/^[a-z_][a-z0-9_-]*\$?$/i.test(name)) throw new Error(`--user ${JSON.stringify(name)} is not a user name`)
  let line: string
  try {
    line = execFileSync('getent', ['passwd', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    throw new Error(`--user ${name}: no such user (create it with \`svc service install --system\`, or \`useradd --system ${name}\`)`)
  }
  const [, , uid, gid, , home] = line.split(':')
  return { name, uid: Number(uid), gid: Number(gid), home: home ?? '/' }
}

/** Gives every entry under `dir` (not following links) to the user: what root made there before the drop. */
function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid)
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) continue
    if (stat.isDirectory()) chownTree(path, uid, gid)
    else chownSync(path, uid, gid)
  }
}

/**
 * The hook socket's directory (plugins/hook-socket), made as root before the drop: the account's own, 0755, so
 * developers can reach the socket and only the daemon can create or replace one there. An existing directory of
 * another account is taken only when empty (never /run itself).
 */
function socketDir(dir: string, user: SystemUser): void {
  const stat = statSync(dir, { throwIfNoEntry: false })
  if (stat && stat.uid !== user.uid && readdirSync(dir).length > 0)
    throw new Error(`SVC_HOOK_SOCKET: ${dir} is another account's and not empty; give the socket a directory of its own (e.g. /run/svc/hook.sock)`)
  mkdirSync(dir, { recursive: true, mode: 0o755 })
  chownSync(dir, user.uid, user.gid)
  chmodSync(dir, 0o755)
}

/**
 * Becomes `name` for the rest of the process, with `home` ($SVC_HOME) owned by it; returns the environment the
 * daemon then runs with (HOME and USER of that account: the ledger marker and caches go to its home, not root's).
 */
export function runAs(name: string, home: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const user = lookupUser(name)
  const current = process.getuid?.()
  const socket = env.SVC_HOOK_SOCKET || DEFAULT_HOOK_SOCKET
  if (current === user.uid) return { ...env, HOME: user.home, USER: user.name, LOGNAME: user.name, SVC_DAEMON_ACCOUNT: user.name, SVC_HOOK_SOCKET: socket }
  if (current !== 0) throw new Error(`--user ${name} needs root to switch to it (this process is uid ${current}); or start the daemon as ${name}`)
  if (user.uid === 0) throw new Error(`--user ${name} is root: the daemon's own user must not be`)
  // The ledger's evidence outside $SVC_HOME (core/ledger/ledger-guard.ts) goes under the user's own home.
  if (!existsSync(user.home) || statSync(user.home).uid !== user.uid)
    throw new Error(
      `--user ${name}: its home ${user.home} is missing or not its own, and the daemon keeps evidence of its ledger there (give it one: \`usermod --home /var/lib/${name} --move-home ${name}\`, or re-run \`svc service install --system\`)`,
    )
  // Parents the daemon's user can pass through (/var/lib), the home itself its own and closed to everyone else.
  mkdirSync(dirname(home), { recursive: true, mode: 0o755 })
  mkdirSync(home, { recursive: true, mode: 0o700 })
  chownTree(home, user.uid, user.gid)
  socketDir(dirname(socket), user)
  process.setgroups!([user.gid])
  process.setgid!(user.gid)
  process.setuid!(user.uid)
  // The drop must be permanent: a process that can become root again has dropped nothing.
  try {
    process.setuid!(0)
  } catch {
    accessSync(home, constants.R_OK | constants.W_OK | constants.X_OK)
    return { ...env, HOME: user.home, USER: user.name, LOGNAME: user.name, SVC_DAEMON_ACCOUNT: user.name, SVC_HOOK_SOCKET: socket }
  }
  throw new Error(`dropping to ${name} did not hold: the process could become root again`)
}
