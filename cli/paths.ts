/** Locations the CLI and daemon agree on. */
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const SHIPPED_POLICIES_DIR = join(PROJECT_ROOT, 'policies')
export const DEFAULT_PORT = 7878
export const DEFAULT_DASHBOARD_PORT = 7879
export const VERSION: string = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version

/** `$SVC_HOME`, else `~/.svc`. */
export function svcHome(env: NodeJS.ProcessEnv, flag?: string): string {
  return resolve(flag ?? env.SVC_HOME ?? join(userHomeOf(env), '.svc'))
}

/** The user's home as the command's environment says (`$HOME`; os.homedir() reads the process's own). */
export function userHomeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir()
}

/** The daemon's base URL for client commands: `--url`, else `SVC_URL`, else loopback:7878. */
export function daemonUrl(env: NodeJS.ProcessEnv, flag?: string): string {
  return (flag ?? env.SVC_URL ?? `http://127.0.0.1:${DEFAULT_PORT}`).replace(/\/+$/, '')
}

/**
 * The explicit port of the daemon client commands talk to (`SVC_URL`, else 7878): what `svc explain`, which runs
 * no daemon, takes as the listening port. A URL without a port gives none (binding 80 would deny every fetch).
 */
export function daemonPort(env: NodeJS.ProcessEnv): number | undefined {
  try {
    const { port } = new URL(daemonUrl(env))
    return port === '' ? undefined : Number(port)
  } catch {
    return undefined
  }
}
