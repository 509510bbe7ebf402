/** The real `svc daemon` in a child process on an ephemeral port (learned from its "listening" log line). */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { childEnv } from './child-env.ts'
import { seedOperatorPassword } from './operator-password.ts'
import { waitFor } from './wait.ts'

export interface ChildDaemon {
  readonly child: ChildProcess
  readonly url: string
  /** Everything the daemon printed so far. */
  logs(): string
  /** True while the process has not exited. */
  alive(): boolean
  stop(): Promise<void>
}

export async function spawnDaemon(home: string, env: NodeJS.ProcessEnv = {}): Promise<ChildDaemon> {
  seedOperatorPassword(home, env)
  const child = spawn(join(PROJECT_ROOT, 'cli', 'svc.sh'), ['daemon', '--port', '0', '--dashboard-port', '0', '--home', home], { env: childEnv({ HOME: home, ...env }) })
  let logs = ''
  let exited = false
  child.stdout!.on('data', (b: Buffer) => (logs += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (logs += b.toString()))
  child.on('exit', () => (exited = true))
  const url = await waitFor(
    () => {
      if (exited) throw new Error(`the daemon exited before listening:\n${logs}`)
      return /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(logs)?.[1]
    },
    'the daemon to listen',
    30_000,
  )
  return {
    child,
    url,
    logs: () => logs,
    alive: () => !exited,
    async stop() {
      if (exited) return
      const done = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await done
    },
  }
}
