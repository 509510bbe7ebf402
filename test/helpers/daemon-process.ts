/** The real `svc daemon` in a child process over a throwaway $SVC_HOME, for tests where the process boundary matters. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { childEnv } from './child-env.ts'
import { seedOperatorPassword } from './operator-password.ts'

const SVC = fileURLToPath(new URL('../../cli/svc.sh', import.meta.url))

export interface DaemonProcess {
  readonly child: ChildProcess
  readonly url: string
  /** Everything the daemon wrote to stderr so far. */
  stderr(): string
  /** Everything the daemon wrote to stdout so far (its JSON log lines). */
  stdout(): string
  post(path: string, body: unknown): Promise<{ status: number; body: any }>
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>
}

/**
 * Starts `svc daemon --port 0 [args]` (the checkout's `svc`, or `bin`); rejects with its stderr when it exits before
 * listening. The checkout's svc gets the run's compile cache and a seeded operator password record (see child-env.ts,
 * operator-password.ts); another `bin` (an npm-installed svc) runs with exactly `env` and hashes its own.
 */
export function startDaemonProcess(env: NodeJS.ProcessEnv, args: readonly string[] = [], bin = SVC): Promise<DaemonProcess> {
  const own = bin === SVC
  if (own && env.SVC_HOME) seedOperatorPassword(env.SVC_HOME, env)
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['daemon', '--port', '0', '--dashboard-port', '0', ...args], { env: own ? childEnv(env) : env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let log = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      log += d.toString()
      const m = /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)
      if (!m) return
      out = ''
      const url = m[1]!
      resolve({
        child,
        url,
        stderr: () => err,
        stdout: () => log,
        async post(path, body) {
          const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
          return { status: res.status, body: await res.json() }
        },
        stop() {
          if (child.exitCode !== null) return Promise.resolve(child.exitCode)
          const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
          child.kill('SIGTERM')
          return exited
        },
      })
    })
    child.on('exit', (code) => reject(new Error(`daemon exited early (${code}): ${err}`)))
  })
}
