/** GET/PATCH /v1/mode: the daemon-level (outer) mode. Changing it needs an operator token. */
import type { FastifyInstance } from 'fastify'
import type { Mode } from '../../types.ts'

const modeSchema = { type: 'string', enum: ['monitor', 'firewall'] } as const

export default async function modeRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/mode', {
    schema: { summary: 'Current daemon mode', response: { 200: { type: 'object', required: ['mode'], properties: { mode: modeSchema } } } },
    handler: async () => ({ mode: app.engine.mode() }),
  })
  app.patch<{ Body: { mode: Mode } }>('/v1/mode', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Set the daemon mode (operator)',
      security: [{ operator: [] }],
      body: { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode: modeSchema } },
      response: {
        200: { type: 'object', required: ['mode', 'previous'], properties: { mode: modeSchema, previous: modeSchema } },
        401: { $ref: 'Problem#' },
      },
    },
    handler: async (request) => {
      const previous = app.engine.mode()
      app.engine.setMode(request.body.mode)
      request.log.warn({ from: previous, to: request.body.mode }, 'daemon mode changed')
      return { mode: request.body.mode, previous }
    },
  })
}
