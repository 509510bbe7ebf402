/**
 * The POSIX hook shim as installed in `$SVC_HOME/bin/svc-hook`: where it lives and whether the installed copy
 * is this version's. Light on purpose (`svc status` reads it on every run).
 */
import { accessSync, constants, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The shim this version ships. */
const SHIM_SOURCE = new URL('./svc-hook.sh', import.meta.url)

/**
 * The text to install: the shipped shim, started by `/bin/bash -p` where this machine has one (its fast path:
 * no curl or openssl process, and no `sh` that only hands over to bash), else by `/bin/sh` (curl + openssl).
 * A shebang naming a missing interpreter would not run at all, which a harness takes as a non-blocking error.
 */
export function shimText(): string {
  const text = readFileSync(SHIM_SOURCE, 'utf8')
  try {
    accessSync('/bin/bash', constants.X_OK)
  } catch {
    return text
  }
  return text.replace(/^#!\/bin\/sh\n/, '#!/bin/bash -p\n')
}

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
  return installed === shimText() ? 'current' : 'stale'
}
