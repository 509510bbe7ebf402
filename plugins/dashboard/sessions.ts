/**
 * Dashboard logins. A login holds the operator token the API issued for the password (never sent to the
 * browser) behind a random session id in an `HttpOnly; SameSite=Strict` cookie, and a second secret (the
 * `X-CSRF-Token`) the page gets only in the login answer and keeps in its own tab (`sessionStorage`, which no
 * other origin reads). Browsers send a cookie for 127.0.0.1 to every port of it, so the cookie alone must not
 * be enough: every API read and change, the event stream (which the page reads with fetch, not EventSource,
 * to send the header), `GET /session` and `/doctor` need both. Nothing answers the secret back. Logout and expiry revoke the operator token with the login.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiProblem } from '../../core/index.ts'

export interface DashboardSession {
  readonly token: string
  readonly csrf: string
  readonly expiresAt: number
}

function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
  }
  return out
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export class DashboardSessions {
  readonly #sessions = new Map<string, DashboardSession>()
  readonly #revoke: (token: string) => void
  /** The cookie name carries the port: browsers do not scope cookies by port, two dashboards must not share one. */
  cookieName = 'svc_dashboard'

  /** `revoke` ends the operator token of a login that ends (logout, expiry). */
  constructor(revoke: (token: string) => void) {
    this.#revoke = revoke
  }

  create(token: string, expiresAt: number): { id: string; session: DashboardSession } {
    const now = Date.now()
    for (const [old, s] of this.#sessions) if (s.expiresAt <= now) this.#drop(old, s)
    const id = randomBytes(32).toString('base64url')
    const session = { token, csrf: randomBytes(32).toString('base64url'), expiresAt }
    this.#sessions.set(id, session)
    return { id, session }
  }

  cookie(id: string, expiresAt: number): string {
    const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000))
    return `${this.cookieName}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`
  }

  clearCookie(): string {
    return `${this.cookieName}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`
  }

  /** The caller's session id and session, if the cookie names a live one. */
  find(request: FastifyRequest): { id: string; session: DashboardSession } | undefined {
    const id = parseCookies(request.headers.cookie).get(this.cookieName)
    if (!id) return undefined
    const session = this.#sessions.get(id)
    if (!session) return undefined
    if (session.expiresAt <= Date.now()) {
      this.#drop(id, session)
      return undefined
    }
    return { id, session }
  }

  /** 401 without a live session; 403 unless the request carries the login's secret in `X-CSRF-Token`. */
  require(request: FastifyRequest): DashboardSession & { id: string } {
    const found = this.find(request)
    if (!found) throw new ApiProblem(401, 'unauthorized', 'log in to the dashboard first (POST /login)')
    const sent = request.headers['x-csrf-token']
    if (typeof sent !== 'string' || !sameSecret(sent, found.session.csrf))
      throw new ApiProblem(403, 'forbidden', 'this request needs the X-CSRF-Token header of the current dashboard login (the login cookie alone is not enough)')
    return { ...found.session, id: found.id }
  }

  end(request: FastifyRequest, reply: FastifyReply): void {
    const found = this.find(request)
    if (found) this.#drop(found.id, found.session)
    reply.header('set-cookie', this.clearCookie())
  }

  #drop(id: string, session: DashboardSession): void {
    this.#sessions.delete(id)
    this.#revoke(session.token)
  }
}
