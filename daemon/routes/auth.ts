/** GET /v1/auth/mode and POST /v1/auth/login (password mode; oidc/ldap answer 501 with a hint). */
import type { FastifyInstance } from 'fastify'
import { LoginThrottle } from '../auth/login-throttle.ts'
import { verifyPassword } from '../auth/password.ts'
import { ApiProblem } from '../../core/errors.ts'
import { AUTH_HINTS } from '../auth/operator-auth.ts'

export default async function authRoutes(app: FastifyInstance): Promise<void> {
  const throttle = new LoginThrottle()

  app.get('/v1/auth/mode', {
    schema: {
      summary: 'Active auth mode',
      response: { 200: { type: 'object', required: ['mode'], properties: { mode: { type: 'string', enum: ['password', 'oidc', 'ldap'] }, hint: { type: 'string' } } } },
    },
    handler: async () => (app.auth.mode === 'password' ? { mode: 'password' } : { mode: app.auth.mode, hint: AUTH_HINTS[app.auth.mode] }),
  })

  app.post<{ Body: { password: string } }>('/v1/auth/login', {
    schema: {
      summary: 'Password login; returns an operator bearer token',
      description: 'Throttled per client: one attempt at a time, and after 3 failures an exponential wait (429 with Retry-After) that a successful login resets.',
      body: { type: 'object', additionalProperties: false, required: ['password'], properties: { password: { type: 'string', minLength: 1, maxLength: 1024 } } },
      response: {
        200: {
          type: 'object',
          required: ['token', 'token_type', 'expires_at'],
          properties: { token: { type: 'string' }, token_type: { type: 'string' }, expires_at: { type: 'string' } },
        },
        401: { $ref: 'Problem#' },
        429: { $ref: 'Problem#' },
        501: { $ref: 'Problem#' },
      },
    },
    handler: async (request) => {
      if (app.auth.mode !== 'password') throw new ApiProblem(501, 'not_implemented', AUTH_HINTS[app.auth.mode], { hint: AUTH_HINTS[app.auth.mode] })
      const stored = app.auth.passwordHash
      if (!stored) throw new ApiProblem(401, 'unauthorized', 'no operator password is set: run `svc auth set-password` and restart the daemon, or start it once with SVC_ADMIN_PASSWORD')
      if (!(await throttle.attempt(request.ip, Date.now(), () => verifyPassword(stored, request.body.password)))) {
        request.log.warn('operator login failed')
        throw new ApiProblem(401, 'unauthorized', 'wrong password')
      }
      const { token, expiresAt } = app.auth.tokens.issue(Date.now())
      return { token, token_type: 'Bearer', expires_at: new Date(expiresAt).toISOString() }
    },
  })
}
