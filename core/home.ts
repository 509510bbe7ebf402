/** Where svc keeps its state: `$SVC_HOME`, else `~/.svc` (the container sets `/data`). */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

export function resolveSvcHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_HOME ? resolve(env.SVC_HOME) : join(homedir(), '.svc')
}
