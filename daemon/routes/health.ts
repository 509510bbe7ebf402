/** GET /v1/health: liveness and daemon version. */
import type { FastifyInstance } from 'fastify'

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/health', {
    schema: {
      summary: 'Daemon liveness',
      response: { 200: { type: 'object', required: ['status', 'version'], properties: { status: { type: 'string', enum: ['ok'] }, version: { type: 'string' } } } },
    },
    handler: async () => ({ status: 'ok', version: app.svcVersion }),
  })
}
