/** A real `svc daemon` process for benchmarks (unattested sessions allowed, the bench operator password). */
import { spawn, type ChildProcess } from 'node:child_process'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { BENCH_PASSWORD } from './operator.ts'

/** Starts one on `port` (0: any free port) with `env` added to the bench's own; resolves once it announces its URL. */
export function startDaemon(home: string, port: number, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['cli/main.ts', 'daemon', '--port', String(port), '--home', home], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: BENCH_PASSWORD, SVC_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let buf = ''
    child.stdout!.on('data', (b: Buffer) => {
      buf += b
      const m = /"address":"(http:[^"]+)"/.exec(buf)
      if (m) resolve({ child, url: m[1]! })
    })
    child.once('exit', (code) => reject(new Error(`daemon exited ${code}`)))
  })
}
