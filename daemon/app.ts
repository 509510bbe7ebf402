/**
 * Builds the daemon's HTTP API as a Fastify instance. It never listens: the CLI does, tests inject.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifySchema, type RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { Engine } from '../core/engine.ts'
import { ApiProblem } from '../core/errors.ts'
import { illFormedAt } from '../core/well-formed.ts'
import { installJsonParser } from './server/json-body.ts'
import type { AuthService } from './auth/operator-auth.ts'
import { installBrowserGuard } from './server/browser-guard.ts'
import { attachLazySchemas, lazySchemas } from './server/lazy-schemas.ts'
import { installProblemHandlers, MAX_PARAM_LENGTH, problemSchema, sendProblem, toProblem } from './server/problem.ts'
import { routes } from './routes/index.ts'
import { startServices } from './server/services.ts'
import { featureRoutes } from './surfaces.ts'

/** Request bodies larger than this are refused with 413 before parsing. */
export const BODY_LIMIT_BYTES = 1024 * 1024

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers text that is not Unicode itself (a recorded deny) instead of the generic 400. */
    readsIllFormedText?: boolean
  }
  interface FastifyInstance {
    engine: Engine
    auth: AuthService
    svcVersion: string
    /** The daemon's environment (switches such as SVC_ALLOW_UNATTESTED are read on the refusing side). */
    env: Readonly<Record<string, string | undefined>>
  }
}

export interface AppOptions {
  readonly engine: Engine
  readonly auth: AuthService
  readonly version: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly logger?: Logger
  /**
   * Collect the OpenAPI document (`app.swagger()`, `npm run openapi`); default true. A running daemon serves no
   * document, so daemon/start.ts leaves it out: @fastify/swagger loads a YAML library and a schema resolver.
   */
  readonly openapi?: boolean
}

const decorations = fp(
  async (app: FastifyInstance, opts: AppOptions) => {
    app.decorate('engine', opts.engine)
    app.decorate('auth', opts.auth)
    app.decorate('svcVersion', opts.version)
    app.decorate('env', opts.env)
  },
  { name: 'svc-engine', fastify: '5.x' },
)

const problemRef = { $ref: 'Problem#' } as const

/**
 * Every route answers bad input the same way, so every route documents it: 400 (malformed or invalid),
 * 413 (too large), 415 (not JSON), 500 and 503 (ledger or storage unavailable) as problems, plus 401 on
 * operator routes and 414 on routes with path parameters. A route without a query string schema refuses every query parameter instead of
 * silently ignoring it (a typo'd filter must not look like an answer to it).
 */
function withErrorContract(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as FastifySchema & { security?: unknown; hide?: boolean }
  if (schema.hide) return
  if (!schema.querystring) schema.querystring = { type: 'object', additionalProperties: false, properties: {} }
  const response = (schema.response ??= {}) as Record<string, unknown>
  const statuses = ['400', '413', '415', '500', '503', ...(schema.security ? ['401'] : []), ...(route.url.includes(':') ? ['414'] : [])]
  for (const status of statuses) if (!(status in response)) response[status] = problemRef
}

/** The daemon's Fastify app with every route registered, ready for `listen` (the CLI) or `inject` (tests). */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const schemas = lazySchemas()
  const app = Fastify({
    schemaController: { compilersFactory: schemas.compilersFactory },
    loggerInstance: opts.logger as FastifyBaseLogger | undefined,
    bodyLimit: BODY_LIMIT_BYTES,
    // "true" must stay a string and unknown fields must be refused, not silently dropped. No meta-schema check of
    // route schemas at every start (compiling the meta-schema cost each start more than its routes' own schemas):
    // test/route-schemas.api.test.ts checks every route schema against it, as core/lazy-ajv.ts does for policies.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, validateSchema: false } },
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A bad percent-encoding or an over-long path parameter fails in the router, before any handler.
    frameworkErrors: (err, _request, reply) => sendProblem(reply, toProblem(err)),
    logController: new LogController({ disableRequestLogging: true }),
  })
  attachLazySchemas(app, schemas)
  installProblemHandlers(app)
  // Text that is not Unicode (a lone UTF-16 surrogate) cannot be hashed, signed or stored as sent: refused
  // before validation, except by routes that answer it themselves (hooks and checks deny and record it).
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.readsIllFormedText) return
    const at = illFormedAt({ body: request.body, query: request.query }, 'request')
    if (at !== undefined) throw new ApiProblem(400, 'invalid_request', `${at.slice('request.'.length)}: not valid Unicode text (a lone UTF-16 surrogate)`)
  })
  installBrowserGuard(app, opts.env)
  // JSON only: a text/plain body is a 415, not a string the schema then calls "not an object".
  app.removeContentTypeParser('text/plain')
  installJsonParser(app)
  app.addSchema(problemSchema)
  app.addHook('onRoute', withErrorContract)
  if (opts.openapi !== false)
    await app.register((await import('@fastify/swagger')).default, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'svc — agent policy control plane', version: opts.version, description: 'Local daemon API. Errors are RFC 9457 problem+json.' },
        servers: [{ url: 'http://127.0.0.1:7878' }],
        components: { securitySchemes: { operator: { type: 'http', scheme: 'bearer', description: 'Token from POST /v1/auth/login' } } },
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    })
  await app.register(decorations, opts)
  for (const route of routes) await app.register(route)
  // Feature plugins' routes (daemon/surfaces.ts): encapsulated children of the root, so they inherit the
  // decorations, the problem handlers and the onRoute error contract above, and keep their own hooks to themselves.
  // Then their background services, stopped when the app closes.
  try {
    for (const { register } of featureRoutes(opts.engine.registry).values()) await app.register(register)
    await startServices(app, opts)
  } catch (err) {
    // What registered or started before the one that threw (a poller, a child process) stops now, so a daemon
    // that fails to start leaves nothing behind.
    await app.close().catch(() => undefined)
    throw err
  }
  return app
}
