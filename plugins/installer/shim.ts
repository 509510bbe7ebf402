/**
 * The POSIX hook shim as installed in `$SVC_HOME/bin/svc-hook`: where it lives and whether the installed copy
 * is this version's. Light on purpose (`svc status` reads it on every run).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The shim this version ships. */
export const SHIM_SOURCE = new URL('./svc-hook.sh', import.meta.url)

/** Where the installed shim lives. */
export function shimPath(svcHome: string): string {
  return join(svcHome, 'bin', 'svc-hook')
}

/** Whether the installed shim is this version's (`stale`: an older or edited copy; `missing`: none). */
export function shimState(svcHome: string): 'current' | 'stale' | 'missing' {
  let installed: string
  try {
    installed = readFileSync(shimPath(svcHome), 'utf8')
  } catch {
    return 'missing'
  }
  return installed === readFileSync(SHIM_SOURCE, 'utf8') ? 'current' : 'stale'
}
