/**
 * The daemon's public face: what the composition root (cli/), plugins that bring surfaces, tests and benches
 * import from the HTTP host. The daemon never imports cli/ or a plugin: its plugin list is passed in.
 * Importing it stays cheap (every plugin face does, so every engine and every CLI command that uses a plugin):
 * Fastify, the server and the daemon's logger (pino) load only when a daemon starts or an app is built.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import type { AppOptions } from './app.ts'
import type { DaemonOptions, RunningDaemon } from './start.ts'

/** Starts a daemon (see daemon/start.ts). */
export async function startDaemon(opts: DaemonOptions): Promise<RunningDaemon> {
  return (await import('./start.ts')).startDaemon(opts)
}

/** The daemon's Fastify app with every route registered, ready for `listen` or `inject` (see daemon/app.ts). */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  return (await import('./app.ts')).buildApp(opts)
}

export {
  lazyRoutes,
  listener,
  routes,
  service,
  type BackgroundService,
  type DaemonListener,
  type DaemonListenerOptions,
  type FeatureRoutes,
  type RoutesSurface,
  type RunningService,
  type ServiceContext,
} from './surfaces.ts'
export type { DaemonOptions, RunningDaemon } from './start.ts'
export type { AppOptions } from './app.ts'
export { browserRefusal, extraAllowedHosts } from './server/browser-guard.ts'
export { createAuthService, type AuthService } from './auth/operator-auth.ts'
export { setPassword } from './auth/password.ts'
export { HookProtocol } from './hook-protocol/protocol.ts'
export { ABSOLUTE_PATH } from './routes/schemas.ts'
