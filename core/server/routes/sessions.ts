/**
 * Session endpoints (minimal form): POST /v1/sessions/create for unattested sessions, allowed only when
 * the daemon runs with SVC_ALLOW_UNATTESTED=1. Each creation is a ledger leaf.
 */
import type { FastifyInstance } from 'fastify'
import { ApiProblem } from '../../errors.ts'
import type { SignerKind } from '../../types.ts'

interface CreateBody {
  signer: SignerKind
  user_id?: string
  groups?: string[]
}

const sessionView = {
  type: 'object',
  required: ['session_id', 'signer', 'created_at', 'expires_at'],
  properties: {
    session_id: { type: 'string' },
    signer: { type: 'string' },
    user_id: { type: 'string' },
    groups: { type: 'array', items: { type: 'string' } },
    created_at: { type: 'string' },
    expires_at: { type: 'string' },
    ledger_seq: { type: 'integer' },
  },
} as const

export default async function sessionRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: CreateBody }>('/v1/sessions/create', {
    schema: {
      summary: 'Create (or rotate to) a session',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['signer'],
        properties: {
          signer: { type: 'string', enum: ['unattested', 'software', 'totp', 'os_keychain', 'hardware_key'] },
          user_id: { type: 'string', minLength: 1, maxLength: 256 },
          groups: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 128 } },
        },
      },
      response: { 201: sessionView, 400: { $ref: 'Problem#' }, 403: { $ref: 'Problem#' }, 501: { $ref: 'Problem#' } },
    },
    handler: async (request, reply) => {
      const { signer, user_id: userId, groups } = request.body
      if (signer !== 'unattested') throw new ApiProblem(501, 'not_implemented', `signer "${signer}" needs a signed session bundle, which this daemon does not accept yet`)
      if (app.env.SVC_ALLOW_UNATTESTED !== '1') {
        throw new ApiProblem(403, 'forbidden', 'unattested sessions are refused: start the daemon with SVC_ALLOW_UNATTESTED=1 to accept an unsigned ledger')
      }
      const now = Date.now()
      const session = app.engine.sessions.create({ signer, userId, groups }, now)
      const entry = await app.engine.record(
        { kind: 'session', sessionId: session.id, signer, source: 'svc', tool: '', verdict: 'session_created', monitorMatch: false, ruleId: '', toolUseId: '', policyTrace: [], payloadHash: '', reason: `session created (signer ${signer})`, at: now },
        session,
      )
      request.log.warn({ session: session.id }, 'UNATTESTED — LEDGER NOT SIGNED')
      return reply.code(201).send({ session_id: session.id, signer, user_id: userId, groups: session.groups, created_at: new Date(now).toISOString(), expires_at: new Date(session.expiresAt).toISOString(), ledger_seq: entry.seq })
    },
  })
}
