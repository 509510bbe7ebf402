/**
 * The dashboard's own Fastify app (the daemon listens on it on the dashboard port): the page and its files,
 * login/logout, the forwarded API, the live stream. Errors are problem+json like the API's.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { ApiProblem } from '../../core/index.ts'
import { IMPORT_MAP_HASH, loadAssets } from './assets.ts'
import { forward, installForwarding } from './forward.ts'
import { installGuard } from './guard.ts'
import type { LiveFeed } from './live-feed.ts'
import { DashboardSessions } from './sessions.ts'
import { StreamCaps } from './stream-caps.ts'

export interface DashboardOptions {
  readonly api: FastifyInstance
  readonly feed: LiveFeed
  readonly env: Readonly<Record<string, string | undefined>>
  readonly log?: Logger
  readonly doctor?: () => Promise<unknown>
}

function problem(status: number, code: string, detail: string) {
  return { type: 'about:blank', title: status >= 500 ? 'Internal Server Error' : code.replace(/_/g, ' '), status, detail, code }
}

const SEQ = /^(-1|0|[1-9][0-9]{0,14})$/

export async function buildDashboard(opts: DashboardOptions): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: opts.log as FastifyBaseLogger | undefined, bodyLimit: 1024 * 1024, logController: new LogController({ disableRequestLogging: true }) })
  const { api, feed } = opts
  const sessions = new DashboardSessions((token) => api.auth.tokens.revoke(token))
  const streams = new StreamCaps()
  const assets = loadAssets()
  feed.attach(api)
  app.addHook('onListen', async () => {
    const bound = app.server.address()
    if (bound !== null && typeof bound === 'object') sessions.cookieName = `svc_dashboard_${bound.port}`
  })
  // Before the server waits for its connections to end: an open event stream would otherwise hold shutdown.
  app.addHook('preClose', async () => feed.close())
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const status = err instanceof ApiProblem ? err.status : (err.statusCode ?? 500)
    const code = err instanceof ApiProblem ? err.code : status >= 500 ? 'internal' : 'invalid_request'
    if (status >= 500) request.log.error({ err }, 'dashboard request failed')
    return reply
      .code(status)
      .type('application/problem+json')
      .send(problem(status, code, status >= 500 ? 'internal error' : err.message))
  })
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .type('application/problem+json')
      .send(problem(404, 'not_found', `no ${request.method} ${request.url.slice(0, 200)} on the dashboard`)),
  )
  installGuard(app, opts.env, IMPORT_MAP_HASH)

  for (const [url, asset] of assets) {
    app.get(url, async (_request, reply) => reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body))
  }

  app.post<{ Body: { password?: unknown } }>('/login', async (request, reply) => {
    const res = await forward(api, '', 'POST', '/v1/auth/login', { password: request.body?.password })
    if (res.status !== 200) return reply.code(res.status).headers(res.headers).type(res.type).send(res.body)
    const login = JSON.parse(res.body) as { token: string; expires_at: string }
    const expiresAt = Date.parse(login.expires_at)
    const { id, session } = sessions.create(login.token, expiresAt)
    return reply.header('set-cookie', sessions.cookie(id, expiresAt)).send({ csrf: session.csrf, expires_at: login.expires_at })
  })

  // Whether the page's login is still live: needs the secret the page holds, and never answers it back.
  app.get('/session', async (request) => {
    const session = sessions.require(request)
    return { expires_at: new Date(session.expiresAt).toISOString() }
  })

  app.post('/logout', async (request, reply) => {
    sessions.require(request)
    sessions.end(request, reply)
    return reply.code(204).send()
  })

  app.get('/auth/mode', async (_request, reply) => {
    const res = await api.inject({ method: 'GET', url: '/v1/auth/mode' })
    return reply.code(res.statusCode).type('application/json').send(res.body)
  })

  app.get<{ Querystring: { after?: string } }>('/events', async (request, reply) => {
    const session = sessions.require(request)
    const lastId = request.headers['last-event-id']
    const resume = typeof lastId === 'string' && lastId !== '' ? lastId : request.query.after
    if (resume !== undefined && !SEQ.test(resume)) throw new ApiProblem(400, 'invalid_request', 'Last-Event-ID and after must be a ledger seq')
    const release = streams.admit(session.id)
    reply.raw.on('close', release)
    reply.hijack()
    reply.raw.writeHead(200, {
      'x-content-type-options': 'nosniff',
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    await feed.stream(reply.raw, resume === undefined ? undefined : Number(resume))
  })

  app.get('/doctor', async (request) => {
    sessions.require(request)
    if (!opts.doctor) throw new ApiProblem(404, 'not_found', 'this daemon does not report doctor checks')
    return opts.doctor()
  })

  installForwarding(app, api, sessions)
  return app
}
