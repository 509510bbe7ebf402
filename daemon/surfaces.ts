/**
 * The surfaces a plugin brings to the daemon (`host.bring(...)` in its `apply`): HTTP routes on the API, a
 * listener on a port of its own, a background service. The core only stores them (core/plugin.ts `Surface`);
 * this module gives them their types and is what the daemon reads when it builds its server and starts.
 */
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { broughtSurfaces, type Engine, type Registries, type Surface } from '../core/index.ts'

/**
 * A feature's HTTP routes: a Fastify plugin function. `buildApp` registers it encapsulated (no fastify-plugin),
 * after the daemon's own routes and in plugin order, so it sees the `engine`, `auth` and `env` decorations and
 * gets the problem+json error contract and the OpenAPI document like every other route, while its own hooks and
 * decorations stay inside it.
 */
export type FeatureRoutes = (app: FastifyInstance) => Promise<void>

export interface RoutesSurface extends Surface {
  readonly kind: 'routes'
  readonly register: FeatureRoutes
}

/** A plugin's routes (one set per plugin). */
export function routes(register: FeatureRoutes): RoutesSurface {
  return { kind: 'routes', register }
}

/**
 * Routes whose module loads only when the daemon builds its server: every CLI command that builds an engine
 * (`svc explain`, `svc policy test`) applies all plugins, and should not load their HTTP handlers, schemas and
 * editors on the way. Use as `host.bring(lazyRoutes(() => import('./routes.ts')))`.
 */
export function lazyRoutes(load: () => Promise<{ readonly default: FeatureRoutes }>): RoutesSurface {
  return routes(async (app) => (await load()).default(app))
}

export interface DaemonListenerOptions {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly log: Logger
  /** What `svc doctor` finds (hooks per harness, shim, session, policy, ledger, problems), computed by the CLI side. */
  readonly doctor?: () => Promise<unknown>
}

/**
 * A second HTTP surface the daemon serves on a port of its own (the web dashboard). `build` gets the daemon's
 * API app so the surface can answer through it in-process (same routes, same ledger entries) and never listens:
 * the daemon does.
 */
export interface DaemonListener extends Surface {
  readonly kind: 'listener'
  readonly name: string
  build(api: FastifyInstance, opts: DaemonListenerOptions): Promise<FastifyInstance>
}

export function listener(name: string, build: DaemonListener['build']): DaemonListener {
  return { kind: 'listener', name, build }
}

/** What a background service starts with: the daemon's engine, environment and a logger bound to the service. */
export interface ServiceContext {
  readonly engine: Engine
  readonly env: Readonly<Record<string, string | undefined>>
  readonly log: Logger
  /** The version the daemon reports (e.g. what an export names as its `service.version`). */
  readonly version: string
  /** The daemon's API app: a service that serves it on another socket (plugins/hook-socket) routes through it. */
  readonly app: FastifyInstance
}

export interface RunningService {
  stop(): Promise<void> | void
}

/**
 * A loop that runs beside the daemon's server (the policy-bundle poller, OTLP export, witnessing): started once
 * the routes are registered, stopped when the server closes. `start` may decline (its setting is absent) by
 * answering undefined; a throw stops the daemon from starting (a bad setting is never ignored).
 */
export interface BackgroundService extends Surface {
  readonly kind: 'service'
  readonly name: string
  start(ctx: ServiceContext): Promise<RunningService | undefined> | RunningService | undefined
}

export function service(name: string, start: BackgroundService['start']): BackgroundService {
  return { kind: 'service', name, start }
}

export const featureRoutes = (registry: Registries): Map<string, RoutesSurface> => broughtSurfaces<RoutesSurface>(registry, 'routes')
export const daemonListeners = (registry: Registries): Map<string, DaemonListener> => broughtSurfaces<DaemonListener>(registry, 'listener')
export const backgroundServices = (registry: Registries): Map<string, BackgroundService> => broughtSurfaces<BackgroundService>(registry, 'service')
