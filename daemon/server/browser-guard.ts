/**
 * Browsers never talk to the daemon. A web page can reach 127.0.0.1 (directly, or by rebinding its own
 * DNS name to it), so every route, hooks included, refuses:
 * - a `Host` that is not one of the daemon's own loopback names with the port the request arrived on
 *   (or an entry of `SVC_ALLOWED_HOSTS`, for a container whose published host port differs);
 * - a request a browser made for another origin: an `Origin` other than the daemon's own, or a
 *   `Sec-Fetch-Site` other than `same-origin` / `none`;
 * - CORS preflights (`OPTIONS`). No route ever sends an `Access-Control-*` header.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiProblem } from '../../core/errors.ts'

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const

/** Host entries `SVC_ALLOWED_HOSTS` adds (comma-separated `name:port`), lower-cased. */
export function extraAllowedHosts(env: Readonly<Record<string, string | undefined>>): ReadonlySet<string> {
  return new Set(
    (env.SVC_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  )
}

/** True when `host` names this daemon: a loopback name with the port the connection came in on, or an allowed extra. */
export function isOwnHost(host: string, localPort: number | undefined, extra: ReadonlySet<string>): boolean {
  const h = host.toLowerCase()
  if (extra.has(h)) return true
  const name = LOOPBACK_NAMES.find((n) => h === n || h.startsWith(`${n}:`))
  if (!name) return false
  const port = h.slice(name.length + 1)
  // In-process `inject` has no socket port: the name is still checked, the port cannot be.
  if (localPort === undefined) return port === '' || /^[0-9]{1,5}$/.test(port)
  return port === String(localPort) || (port === '' && localPort === 80)
}

/**
 * Why a request is not for `surface` (`this daemon`, `this dashboard`), or undefined when it may proceed: a
 * preflight, a Host naming something else, another browser origin, a cross-site fetch.
 */
export function browserRefusal(request: FastifyRequest, extra: ReadonlySet<string>, surface = 'this daemon'): string | undefined {
  if (request.method === 'OPTIONS') return `CORS preflight refused: ${surface} answers no other origin`
  const host = request.headers.host ?? ''
  if (!isOwnHost(host, request.socket.localPort, extra)) {
    return `Host "${host.slice(0, 100)}" is not ${surface} (expected 127.0.0.1, localhost or [::1] with its port; add others to SVC_ALLOWED_HOSTS)`
  }
  const origin = request.headers.origin
  if (origin !== undefined && origin.toLowerCase() !== `http://${host.toLowerCase()}`) return `requests from the browser origin "${origin.slice(0, 100)}" are refused`
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `browser requests (Sec-Fetch-Site: ${String(site).slice(0, 40)}) are refused`
  return undefined
}

/** Installs the guard as the first onRequest hook of `app` (so it runs before auth, body parsing and routes). */
export function installBrowserGuard(app: FastifyInstance, env: Readonly<Record<string, string | undefined>>): void {
  const extra = extraAllowedHosts(env)
  app.addHook('onRequest', async (request) => {
    const reason = browserRefusal(request, extra)
    if (reason) throw new ApiProblem(403, 'browser_refused', reason)
  })
}
