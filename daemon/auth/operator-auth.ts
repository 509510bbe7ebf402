/**
 * Operator authentication. Mode `password` is the only one shipped: the login returns a bearer token
 * that mutating operator endpoints require. `oidc` and `ldap` answer 501 with what is missing.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { readPasswordHash, setPassword, type StoredHash } from './password.ts'
import { TokenStore } from './tokens.ts'
import { ApiProblem } from '../../core/errors.ts'
import { sha256 } from '../../core/hash.ts'

export type AuthMode = 'password' | 'oidc' | 'ldap'

export const AUTH_HINTS: Record<Exclude<AuthMode, 'password'>, string> = {
  oidc: 'oidc mode is not implemented in this build: it needs an identity provider issuer URL (SVC_OIDC_ISSUER), a client id (SVC_OIDC_CLIENT_ID) and the authorization-code flow; use SVC_AUTH_MODE=password',
  ldap: 'ldap mode is not implemented in this build: it needs a directory URL (SVC_LDAP_URL), a bind DN (SVC_LDAP_BIND_DN) and a user search base; use SVC_AUTH_MODE=password',
}

export interface AuthService {
  readonly mode: AuthMode
  readonly tokens: TokenStore
  /** The onRequest hook of operator endpoints: 401 problem unless a valid bearer token is presented (before the body is even read). */
  requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<void>
  /** True when the request carries a valid operator token (for routes where only some requests need one). */
  isOperator(request: FastifyRequest): boolean
  /** Who an operator request is, for the ledger: `operator:<token digest prefix>` (never the token). */
  who(request: FastifyRequest): string
  home: string
  /** The password hash as read once at start: a rewritten auth.json is not believed (plugins/operator-secrets records it). */
  readonly passwordHash: StoredHash | undefined
}

function bearer(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
}

/** Reads `SVC_AUTH_MODE`; seeds the password hash from `SVC_ADMIN_PASSWORD` at first start. */
export function createAuthService(home: string, env: NodeJS.ProcessEnv): AuthService {
  const raw = env.SVC_AUTH_MODE ?? 'password'
  if (raw !== 'password' && raw !== 'oidc' && raw !== 'ldap') throw new Error(`SVC_AUTH_MODE must be password, oidc or ldap, not "${raw}"`)
  if (raw === 'password' && env.SVC_ADMIN_PASSWORD && !readPasswordHash(home)) setPassword(home, env.SVC_ADMIN_PASSWORD)
  const tokens = new TokenStore()
  return {
    mode: raw,
    tokens,
    home,
    passwordHash: raw === 'password' ? readPasswordHash(home) : undefined,
    async requireOperator(request) {
      const token = bearer(request)
      if (!token) throw new ApiProblem(401, 'unauthorized', 'this endpoint needs an operator token: POST /v1/auth/login, then send `Authorization: Bearer <token>`')
      if (!tokens.valid(token, Date.now())) throw new ApiProblem(401, 'unauthorized', 'the operator token is unknown or expired; log in again')
    },
    isOperator(request) {
      const token = bearer(request)
      return token !== undefined && tokens.valid(token, Date.now())
    },
    who(request) {
      const token = bearer(request)
      return token ? `operator:${sha256(token).slice(0, 12)}` : 'anonymous'
    },
  }
}
