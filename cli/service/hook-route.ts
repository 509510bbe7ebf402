/**
 * Which route `svc install` writes into the hooks: a daemon under its own account (`svc service install --system`)
 * is called on its Unix socket (plugins/hook-socket), in a directory only that account can write, so no process
 * of the developer's uid can bind or replace it; a daemon under the developer's own uid keeps the TCP URL (the
 * socket would add nothing: the same uid could replace it). The shim takes its curl path for the socket.
 */
import { lstatSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { DEFAULT_HOOK_SOCKET, socketDirProblem } from '../../plugins/hook-socket/index.ts'
import { CliError } from '../io.ts'
import { daemonSeparation } from '../status/separation.ts'

/** The socket path a separated daemon serves hooks on: `--socket`, else $SVC_HOOK_SOCKET, else /run/svc/hook.sock. */
export const hookSocketPath = (env: NodeJS.ProcessEnv, flag?: string) => flag || env.SVC_HOOK_SOCKET || DEFAULT_HOOK_SOCKET

/** Why `path` is not a socket the daemon's account (`uid`) vouches for, or undefined when it is. */
function socketProblem(path: string, uid: number): string | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false })
  if (!stat?.isSocket()) return `${path} is not a socket (is the daemon running with SVC_HOOK_SOCKET=${path}?)`
  return socketDirProblem(dirname(path), uid)
}

/**
 * The socket the hooks must call, or undefined for the TCP URL. A named socket (`--socket`, $SVC_HOOK_SOCKET) that is
 * not sound is an error. A separated daemon with nothing at the default path (a container's, whose port a root
 * proxy holds; a daemon started without `--user`) keeps TCP, with `warn` saying so.
 */
export function hookRoute(url: string, env: NodeJS.ProcessEnv, flag?: string, warn: (line: string) => void = () => {}): string | undefined {
  const path = hookSocketPath(env, flag)
  const separation = daemonSeparation(url)
  if (separation.state === 'same-user') {
    if (flag) throw new CliError(`--socket ${flag}: the daemon at ${url} runs as you, so a socket would keep nothing of yours out; leave --socket off`)
    return undefined
  }
  if (separation.state === 'separate') {
    const problem = socketProblem(path, separation.uid!)
    if (problem && !flag && !env.SVC_HOOK_SOCKET && !lstatSync(path, { throwIfNoEntry: false })) {
      warn(
        `warning: the daemon at ${url} runs as ${separation.user ?? `uid ${separation.uid}`} but serves no hook socket at ${path}, so hooks call its TCP port (a daemon started with \`svc daemon --user\` serves one; \`--socket\` names another path)`,
      )
      return undefined
    }
    if (problem)
      throw new CliError(`the daemon at ${url} runs as ${separation.user ?? `uid ${separation.uid}`}, so hooks call its Unix socket, but ${problem}; name it with --socket`)
    return path
  }
  // The daemon is not answering: the socket is still used when its directory is another account's, as a stopped
  // system daemon leaves it (and the hooks then block until it runs).
  const dir = statSync(dirname(path), { throwIfNoEntry: false })
  if (flag || (dir && dir.uid !== process.getuid?.() && lstatSync(path, { throwIfNoEntry: false })?.isSocket())) {
    const problem = dir ? socketProblem(path, dir.uid) : `${dirname(path)} is missing`
    if (problem) throw new CliError(`--socket ${path}: ${problem}`)
    return path
  }
  return undefined
}
