/**
 * Starts the daemon: engine with the plugins its composition root passes in, auth, the HTTP API on loopback,
 * the listeners and services plugins brought, graceful shutdown. Outside a container it binds 127.0.0.1 only
 * and refuses any other address unless explicitly forced.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { createEngine, protectedPorts, type Engine, type EnginePlugin } from '../core/index.ts'
import { daemonListeners } from './surfaces.ts'
import { attachRenewal } from './renewal.ts'
import { inContainer } from './container.ts'
import { parseDuration } from '../core/duration.ts'
import { SessionStore } from '../core/sessions/store.ts'
import { buildApp } from './app.ts'
import { createAuthService } from './auth/operator-auth.ts'
import { SqliteLedger } from '../core/ledger/ledger.ts'
import { ledgerMarkerPath } from '../core/ledger/ledger-guard.ts'

export interface DaemonOptions {
  readonly home: string
  readonly port: number
  readonly host?: string
  readonly allowNonLoopback?: boolean
  readonly env: NodeJS.ProcessEnv
  readonly log: Logger
  /** Every plugin the engine applies, in order (the composition root's list). */
  readonly plugins: readonly EnginePlugin[]
  /** Directory of the shipped daemon-layer policy files. */
  readonly policiesDir: string
  /** The version the API reports. */
  readonly version: string
  /** What `svc doctor` finds, for the dashboard's Health page: given the API's URL, loaded only when asked. */
  readonly doctor?: (apiUrl: string) => Promise<unknown>
  /** `--new-ledger`: start a new ledger where evidence says one existed (its first leaf names what it replaces). */
  readonly newLedger?: boolean
  /** Port of the web dashboard (0 = pick one); undefined serves no dashboard. */
  readonly dashboardPort?: number
}

export interface RunningDaemon {
  readonly app: FastifyInstance
  readonly engine: Engine
  readonly url: string
  /** The dashboard's base URL when one is served. */
  readonly dashboardUrl?: string
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])

/** A duration setting from the environment (`30m`, `90s`, `1500ms`); a malformed one stops the daemon. */
function durationEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  try {
    return parseDuration(raw)
  } catch (err) {
    throw new Error(`${name}=${raw}: ${(err as Error).message}`)
  }
}

/** `SVC_CHECKPOINT_INTERVAL`: checkpoints may come more often than every 2 s (tests), never less often. */
function checkpointInterval(env: NodeJS.ProcessEnv): number | undefined {
  const ms = durationEnv(env, 'SVC_CHECKPOINT_INTERVAL')
  if (ms !== undefined && (ms <= 0 || ms > 2000))
    throw new Error(`SVC_CHECKPOINT_INTERVAL=${env.SVC_CHECKPOINT_INTERVAL}: must be more than 0 and at most 2s (signed checkpoints come at least every 2 s)`)
  return ms
}

export async function startDaemon(opts: DaemonOptions): Promise<RunningDaemon> {
  const host = opts.host ?? (inContainer(opts.env) ? '0.0.0.0' : '127.0.0.1')
  if (!LOOPBACK.has(host) && !inContainer(opts.env) && !opts.allowNonLoopback) {
    throw new Error(`refusing to listen on ${host}: the API is loopback-only outside a container (pass --allow-non-loopback to force it)`)
  }
  const { log } = opts
  mkdirSync(opts.home, { recursive: true, mode: 0o700 })
  // Bound before the first request; with --port 0 the real port is added once listen() has picked it.
  const svcPorts = protectedPorts(opts.env, opts.port)
  const sessions = new SessionStore({ idleMs: durationEnv(opts.env, 'SVC_SESSION_IDLE') })
  attachRenewal(sessions, { graceMs: durationEnv(opts.env, 'SVC_RENEWAL_WAIT'), memoPath: join(opts.home, 'renewer.json') })
  // A daemon refuses a ledger.db that disagrees with the evidence outside it (see core/ledger/ledger-guard.ts).
  const ledger = new SqliteLedger({ path: join(opts.home, 'ledger.db'), daemon: { marker: ledgerMarkerPath(opts.env, opts.home), allowNew: opts.newLedger } })
  let engine: Engine
  try {
    engine = await createEngine({
      sessions,
      checkpointIntervalMs: checkpointInterval(opts.env),
      plugins: opts.plugins,
      home: opts.home,
      policiesDir: opts.policiesDir,
      userHome: opts.env.SVC_USER_HOME,
      log,
      watch: true,
      svcPorts,
      env: opts.env,
      ledger,
    })
  } catch (err) {
    await ledger.close()
    throw err
  }
  let app: FastifyInstance | undefined
  try {
    const auth = createAuthService(opts.home, opts.env)
    app = await buildApp({ engine, auth, version: opts.version, env: { ...opts.env }, logger: log, openapi: false })
    const address = await app.listen({ port: opts.port, host })
    const dashboard = opts.dashboardPort === undefined ? undefined : await listenDashboard(app, engine, opts.dashboardPort, host, opts, log)
    engine.setSvcPorts([...svcPorts, boundPort(app), ...(dashboard ? [boundPort(dashboard)] : [])].filter((p): p is number => p !== undefined))
    const dashboardUrl = dashboard ? loopbackUrl(`http://${host.includes(':') ? `[${host}]` : host}:${boundPort(dashboard)}`) : undefined
    // OTLP export, witnessing and the policy-bundle poller are plugins: they start in buildApp and stop in app.close().
    log.info(
      { address, ...(dashboardUrl ? { dashboard: dashboardUrl } : {}), home: opts.home, mode: engine.mode(), policy_hash: engine.policy.hash, protected_ports: engine.svcPorts() },
      'svc daemon listening',
    )
    let closing: Promise<void> | undefined
    const api = app
    return {
      app: api,
      engine,
      url: loopbackUrl(address),
      ...(dashboardUrl ? { dashboardUrl } : {}),
      close() {
        closing ??= (async () => {
          await dashboard?.close()
          await api.close()
          await engine.close()
        })()
        return closing
      },
    }
  } catch (err) {
    // The app's onClose stops what its plugins started (export, witnessing, bundle polling).
    await app?.close()
    await engine.close()
    throw err
  }
}

function boundPort(app: FastifyInstance): number | undefined {
  const bound = app.server.address()
  return bound !== null && typeof bound === 'object' ? bound.port : undefined
}

function loopbackUrl(address: string): string {
  return address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]')
}

/** The dashboard plugin's second listener on its own port (same bind address as the API); none when no plugin offers one. */
async function listenDashboard(api: FastifyInstance, engine: Engine, port: number, host: string, opts: DaemonOptions, log: Logger): Promise<FastifyInstance | undefined> {
  const listener = daemonListeners(engine.registry).get('dashboard')
  if (!listener) return undefined
  const apiUrl = loopbackUrl(`http://${host.includes(':') ? `[${host}]` : host}:${boundPort(api)}`)
  // The Health page shows what `svc doctor` finds; its modules load only when the page asks.
  const doctor = opts.doctor && (() => opts.doctor!(apiUrl))
  const app = await listener.build(api, { env: { ...opts.env }, log: log.child({ surface: 'dashboard' }), ...(doctor ? { doctor } : {}) })
  try {
    await app.listen({ port, host })
  } catch (err) {
    await app.close()
    await api.close()
    throw new Error(`the dashboard cannot listen on ${host}:${port}: ${(err as Error).message} (choose another with --dashboard-port or SVC_DASHBOARD_PORT; 0 picks a free one)`)
  }
  return app
}
