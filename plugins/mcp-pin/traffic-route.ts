/**
 * GET /v1/mcp/traffic: what `svc mcp-proxy` relays passed without a verdict (traffic.ts), per server: counts by
 * method, drops the relays reported, and the last entries (method, id, direction, size; never contents).
 * `svc mcp log <server>` reads it.
 */
import type { FastifyInstance } from 'fastify'
import { trafficOf } from './traffic.ts'

const entry = {
  type: 'object',
  properties: { at: { type: 'string' }, from: { type: 'string' }, kind: { type: 'string' }, method: { type: 'string' }, id: { type: 'string' }, bytes: { type: 'integer' }, refused: { type: 'string' } },
} as const

const serverTraffic = {
  type: 'object',
  required: ['server', 'received', 'dropped', 'by_method', 'entries'],
  properties: {
    server: { type: 'string' },
    received: { type: 'integer', description: 'entries the relays recorded since the daemon started' },
    dropped: { type: 'integer', description: 'entries the relays could not queue or post (daemon busy or down)' },
    last_at: { type: 'string' },
    by_method: { type: 'object', additionalProperties: { type: 'integer' } },
    entries: { type: 'array', items: entry },
  },
} as const

export default async function trafficRoute(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { server?: string; limit?: string } }>('/v1/mcp/traffic', {
    schema: {
      summary: 'Messages svc mcp-proxy relayed without a verdict (initialize, lists, notifications…), per server, newest last',
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          server: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
          limit: { type: 'string', pattern: '^(500|[1-4]?[0-9]{1,2})$', description: 'entries per server, 0 to 500 (default 50)' },
        },
      },
      response: { 200: { type: 'object', required: ['servers'], properties: { servers: { type: 'array', items: serverTraffic } } } },
    },
    handler: async (request) => {
      const { server } = request.query
      const limit = Number(request.query.limit ?? 50)
      const record = trafficOf(app.engine)
      const all = server === undefined ? record.list() : [record.get(server) ?? { server, received: 0, dropped: 0, by_method: {}, entries: [] }]
      return { servers: all.map((t) => ({ ...t, by_method: { ...t.by_method }, entries: limit === 0 ? [] : t.entries.slice(-limit) })) }
    },
  })
}
