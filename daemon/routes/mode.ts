/** GET/PATCH /v1/mode: the daemon-level (outer) mode. Changing it needs an operator token. */
import type { FastifyInstance } from 'fastify'
import type { Mode } from '../../core/types.ts'

const modeSchema = { type: 'string', enum: ['monitor', 'firewall'] } as const

export default async function modeRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/mode', {
    schema: { summary: 'Current daemon mode', response: { 200: { type: 'object', required: ['mode'], properties: { mode: modeSchema } } } },
    handler: async () => ({ mode: app.engine.mode() }),
  })
  app.patch<{ Body: { mode: Mode; reason?: string } }>('/v1/mode', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Set the daemon mode (operator)',
      security: [{ operator: [] }],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['mode'],
        properties: { mode: modeSchema, reason: { type: 'string', minLength: 1, maxLength: 500, description: 'why (kept in the mode_changed ledger entry)' } },
      },
      response: {
        200: {
          type: 'object',
          required: ['mode', 'previous', 'ledger_seq'],
          properties: { mode: modeSchema, previous: modeSchema, ledger_seq: { type: 'integer', description: 'the mode_changed ledger entry' } },
        },
        401: { $ref: 'Problem#' },
      },
    },
    handler: async (request) => {
      const previous = app.engine.mode()
      const entry = await app.engine.setMode(request.body.mode, app.auth.who(request), request.body.reason)
      request.log.warn({ from: previous, to: request.body.mode, ledger_seq: entry.seq }, 'daemon mode changed')
      return { mode: request.body.mode, previous, ledger_seq: entry.seq }
    },
  })
}
