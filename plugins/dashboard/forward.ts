/**
 * `/api/v1/...` on the dashboard is the daemon's `/v1/...` answered in-process (`inject`) with the operator
 * token of the dashboard login: the same route, the same validation, the same ledger entry as the CLI. Only
 * the routes the pages use are reachable; the agent-facing ones (hooks, checks, session minting) are not.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import { ApiProblem } from '../../core/index.ts'
import type { DashboardSessions } from './sessions.ts'

const READABLE =
  /^\/v1\/(ledger\/(root|entries|consistency|calls|calls\/[0-9]+\/trace|checkpoints|proof\/[0-9]+)|mode|gates(\/stats)?|policy\/view|sessions(\/insights)?|mcp\/(pins|servers)|false-positives\/cases\/[0-9]+(\/draft)?|guardrails\/(providers|enabled|traces\/[0-9]+)|health|auth\/mode)$/
const CHANGEABLE = /^\/v1\/(mode|mcp\/pin\/(accept|reject)|false-positives\/(validate|apply|revert|cases\/[0-9]+\/replay))$/

/** Answers one API call for a logged-in operator; `path` is the `/v1/...` path with its query string. */
export async function forward(
  api: FastifyInstance,
  token: string,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; type: string; body: string; headers: Record<string, string> }> {
  const res = await api.inject({
    method: method as HTTPMethods,
    url: path,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  })
  const retryAfter = res.headers['retry-after']
  return {
    status: res.statusCode,
    type: String(res.headers['content-type'] ?? 'application/json'),
    body: res.body,
    headers: retryAfter ? { 'retry-after': String(retryAfter) } : {},
  }
}

export function installForwarding(app: FastifyInstance, api: FastifyInstance, sessions: DashboardSessions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const session = sessions.require(request)
    const url = request.url.slice('/api'.length)
    const path = url.split('?')[0]!
    const allowed = request.method === 'GET' ? READABLE : CHANGEABLE
    if (!allowed.test(path)) throw new ApiProblem(404, 'not_found', `the dashboard does not offer ${request.method} ${path.slice(0, 200)}`)
    const res = await forward(api, session.token, request.method, url, request.method === 'GET' ? undefined : (request.body ?? {}))
    return reply.code(res.status).headers(res.headers).type(res.type).send(res.body)
  }
  app.route({ method: ['GET', 'POST', 'PATCH'], url: '/api/v1/*', handler })
}
