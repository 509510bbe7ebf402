/**
 * Test helpers: a real daemon (engine + Fastify) on an ephemeral loopback port over a temp $SVC_HOME.
 */
import { rmSync } from 'node:fs'
import pino, { type Logger } from 'pino'
import type { EnginePlugin } from '../../core/index.ts'
import type { RunningDaemon } from '../../daemon/index.ts'
import { startSvcDaemon } from '../../cli/start-daemon.ts'
import { seedOperatorPassword } from './operator-password.ts'
import { tempDir } from './temp.ts'

export { tempDir }

export interface TestDaemon extends RunningDaemon {
  readonly home: string
  /** POSTs/GETs JSON and returns status, content type and parsed body. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; type: string; body: any }>
  /** Creates an unattested session (with operator rights, which that needs) and returns its id. */
  session(extra?: { user_id?: string; groups?: string[] }): Promise<string>
  /** An operator bearer token (logged in once with the test password, then reused). */
  operatorToken(): Promise<string>
  stop(): Promise<void>
}

/**
 * `dashboard: true` also serves the web dashboard, on an ephemeral port like the API (never 7879). The home gets
 * the run's operator password record (test/helpers/operator-password.ts) unless `hashPassword` leaves the
 * hashing of SVC_ADMIN_PASSWORD to the daemon's first start.
 * `plugins` replaces the composition root's list (a test registers a fixture harness that way).
 */
export async function startTestDaemon(
  opts: { env?: NodeJS.ProcessEnv; home?: string; policiesDir?: string; log?: Logger; dashboard?: boolean; hashPassword?: boolean; plugins?: readonly EnginePlugin[] } = {},
): Promise<TestDaemon> {
  const home = opts.home ?? tempDir()
  const env = { SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', ...opts.env }
  if (!opts.hashPassword) seedOperatorPassword(home, env)
  const daemon = await startSvcDaemon({
    home,
    port: 0,
    env,
    log: opts.log ?? pino({ level: 'silent' }),
    policiesDir: opts.policiesDir,
    ...(opts.plugins ? { plugins: opts.plugins } : {}),
    ...(opts.dashboard ? { dashboardPort: 0 } : {}),
  })
  const request: TestDaemon['request'] = async (method, path, body, headers = {}) => {
    const res = await fetch(`${daemon.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      // keep raw text
    }
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: parsed }
  }
  let token: string | undefined
  const operatorToken = async () => {
    token ??= (await request('POST', '/v1/auth/login', { password: env.SVC_ADMIN_PASSWORD })).body.token as string
    return token
  }
  return {
    ...daemon,
    home,
    request,
    operatorToken,
    async session(extra = {}) {
      const res = await request('POST', '/v1/sessions/create', { signer: 'unattested', ...extra }, { authorization: `Bearer ${await operatorToken()}` })
      if (res.status !== 201) throw new Error(`session create failed: ${JSON.stringify(res.body)}`)
      return res.body.session_id as string
    },
    async stop() {
      await daemon.close()
      if (!opts.home) rmSync(home, { recursive: true, force: true })
    },
  }
}
