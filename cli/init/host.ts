/**
 * What `svc init` finds on this host before it changes anything: the OS, whether a per-user service manager
 * runs (systemd --user, launchd), which signer tiers can work here and why not, and the tier it picks (the
 * best available: os-keychain, then totp; software only when named).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { KEYSTORE_LABELS, KEYSTORES, keystoreUnavailable, type KeystoreId } from '../signer/keystores.ts'

export type ServiceManager = 'systemd' | 'launchd' | 'none'

export interface HostFacts {
  readonly os: string
  readonly manager: ServiceManager
  /** Why there is no service manager (what PID 1 is), or how it was found. */
  readonly managerNote: string
  readonly keystores: readonly { readonly id: KeystoreId; readonly label: string; readonly unavailable?: string }[]
}

function pid1(): string {
  try {
    return readFileSync('/proc/1/comm', 'utf8').trim()
  } catch {
    return 'unknown'
  }
}

function userSystemd(env: NodeJS.ProcessEnv): string | undefined {
  try {
    execFileSync('systemctl', ['--user', 'show-environment'], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 })
    return undefined
  } catch (err) {
    return ((err as { stderr?: Buffer }).stderr?.toString() || (err as Error).message).trim().split('\n')[0]
  }
}

/** The OS, the service manager and the keystores, as this host has them. `SVC_INIT_NO_SERVICE_MANAGER=1` (tests) forces none. */
export function hostFacts(env: NodeJS.ProcessEnv): HostFacts {
  const platform = env.SVC_KEYCHAIN_PLATFORM ?? process.platform
  let os = platform
  try {
    if (platform === 'linux') os = `Linux (${/^PRETTY_NAME="?([^"\n]*)/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'unknown distribution'})`
    else if (platform === 'darwin') os = 'macOS'
  } catch {
    os = platform === 'linux' ? 'Linux' : platform
  }
  let manager: ServiceManager = 'none'
  let managerNote: string
  if (env.SVC_INIT_NO_SERVICE_MANAGER === '1') managerNote = 'service managers switched off (SVC_INIT_NO_SERVICE_MANAGER=1)'
  else if (platform === 'darwin') {
    manager = 'launchd'
    managerNote = 'launchd (LaunchAgents)'
  } else if (platform === 'linux' && existsSync('/run/systemd/system')) {
    const why = userSystemd(env)
    if (why === undefined) {
      manager = 'systemd'
      managerNote = 'systemd --user'
    } else managerNote = `systemd runs, but not for this user (${why})`
  } else managerNote = `no service manager runs here (PID 1 is \`${pid1()}\`, not systemd)`
  return { os, manager, managerNote, keystores: KEYSTORES.map((id) => ({ id, label: KEYSTORE_LABELS[id], unavailable: keystoreUnavailable(id, env) })) }
}

/** The tier `svc init` uses: the one named, else os-keychain where a keystore works, else totp. */
export function pickTier(facts: HostFacts, named?: string): { tier: 'os-keychain' | 'totp' | 'software'; why: string } {
  if (named === 'os-keychain' || named === 'totp' || named === 'software') return { tier: named, why: 'named with --tier' }
  const usable = facts.keystores.find((k) => !k.unavailable)
  if (usable) return { tier: 'os-keychain', why: `the ${usable.label} is usable` }
  return { tier: 'totp', why: 'no OS keystore is usable here (see above); TOTP is the best tier left' }
}

/** How the user runs `svc`: the bare name when it is on PATH, else the absolute path of this package's bin. */
export function svcCommand(env: NodeJS.ProcessEnv, svcBin: string): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'svc'))) return 'svc'
  return svcBin
}
