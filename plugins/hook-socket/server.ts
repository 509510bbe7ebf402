/**
 * Serves the daemon's hook routes (and its health) on a Unix socket. Who may create a file in a directory is the
 * OS's to say: the socket's directory must be the daemon's account's and writable by nobody else, so the socket
 * at that path is the daemon's. The socket itself is 0666: every developer may connect (the answer still carries
 * the hook MAC: defence in depth).
 */
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { dirname, isAbsolute } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { RunningService } from '../../daemon/index.ts'

/** Where `svc daemon --user` puts the socket unless SVC_HOOK_SOCKET says otherwise (systemd's RuntimeDirectory=svc). */
export const DEFAULT_HOOK_SOCKET = '/run/svc/hook.sock'

/** Only what a hook shim asks: a hook event, and health (doctor). Everything else is the TCP API's. */
const ROUTED = /^\/v1\/(hooks\/[A-Za-z0-9._-]+\/[A-Za-z0-9_]+|health)(\?|$)/

/**
 * Why `dir` cannot hold a socket the OS vouches for as `uid`'s: missing, not a directory, another account's, or
 * writable by its group or others (who could then unlink the socket and bind their own). Undefined when it can.
 */
export function socketDirProblem(dir: string, uid: number): string | undefined {
  let stat: ReturnType<typeof statSync>
  try {
    stat = statSync(dir)
  } catch (err) {
    return `${dir} is missing (${(err as NodeJS.ErrnoException).code})`
  }
  if (!stat.isDirectory()) return `${dir} is not a directory`
  if (stat.uid !== uid) return `${dir} belongs to uid ${stat.uid}, not the daemon's account (uid ${uid})`
  if ((stat.mode & 0o022) !== 0) return `${dir} is writable by others (mode ${(stat.mode & 0o777).toString(8)})`
  return undefined
}

export async function startHookSocket(app: FastifyInstance, path: string, log: Logger): Promise<RunningService> {
  if (!isAbsolute(path)) throw new Error(`SVC_HOOK_SOCKET=${path}: must be an absolute path`)
  const uid = process.getuid!()
  const problem = socketDirProblem(dirname(path), uid)
  if (problem) throw new Error(`SVC_HOOK_SOCKET=${path}: ${problem}; its directory must be the daemon's own, mode 0755 (\`svc daemon --user\` makes it as root)`)
  // A socket left by an earlier run: the directory is ours alone, so it is our own stale one.
  const old = lstatSync(path, { throwIfNoEntry: false })
  if (old && !old.isSocket()) throw new Error(`SVC_HOOK_SOCKET=${path}: something other than a socket is there`)
  if (old) unlinkSync(path)
  await app.ready()
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (ROUTED.test(req.url ?? '')) return app.routing(req, res)
    res.writeHead(404, { 'content-type': 'application/problem+json' })
    res.end(
      JSON.stringify({
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        code: 'not_found',
        detail: 'the hook socket serves /v1/hooks/ and /v1/health only; the API is on the TCP port',
      }),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => resolve())
  })
  chmodSync(path, 0o666)
  log.info({ socket: path }, 'hook socket listening')
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        // Node removes the socket file as it closes; a hook then finds none and blocks, and only this account may bind it again.
      }),
  }
}
