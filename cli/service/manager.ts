/**
 * Loads and unloads the per-user services with the platform's own tool: `systemctl --user` (Linux) or
 * `launchctl` (macOS). Where the service manager does not run (a container without systemd --user), the
 * files are still written and the user is told exactly what to run once it does.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { ServiceFile, ServicePlatform } from './units.ts'

export interface ManagerResult {
  readonly ok: boolean
  readonly note?: string
}

export interface ServiceState {
  readonly file: ServiceFile
  readonly installed: boolean
  /** The file on disk equals what install would write now (same svc path, port, home, tier). */
  readonly current: boolean
  /** `active`, `inactive`, `failed`, … from the service manager, or `unknown` when it cannot be asked. */
  readonly running: string
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): { ok: boolean; out: string } {
  try {
    return { ok: true, out: execFileSync(file, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 }).trim() }
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string }
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() || e.message }
  }
}

const uid = () => (process.getuid ? process.getuid() : 0)

/** Writes the files (atomically) and loads them; `note` says what could not be done. */
export function installServices(platform: ServicePlatform, files: readonly ServiceFile[], env: NodeJS.ProcessEnv): ManagerResult {
  for (const f of files) {
    mkdirSync(dirname(f.path), { recursive: true })
    writeFileAtomic.sync(f.path, f.text, { mode: 0o644 })
  }
  if (platform === 'systemd') {
    const reload = run('systemctl', ['--user', 'daemon-reload'], env)
    if (!reload.ok) {
      return {
        ok: false,
        note: `systemd --user is not available here (${reload.out.split('\n')[0]}); the unit files are written: once it runs, start them with \`systemctl --user daemon-reload && systemctl --user enable --now ${files.map((f) => f.id).join(' ')}\``,
      }
    }
    const enable = run('systemctl', ['--user', 'enable', '--now', ...files.map((f) => f.id)], env)
    // A re-install must pick up a changed unit: restart what was already running.
    if (enable.ok) run('systemctl', ['--user', 'restart', ...files.map((f) => f.id)], env)
    return enable.ok ? { ok: true } : { ok: false, note: `systemctl --user enable --now failed: ${enable.out}` }
  }
  for (const f of files) {
    run('launchctl', ['bootout', `gui/${uid()}/${f.id}`], env)
    const boot = run('launchctl', ['bootstrap', `gui/${uid()}`, f.path], env)
    if (!boot.ok) return { ok: false, note: `launchctl bootstrap ${f.path} failed: ${boot.out}` }
  }
  return { ok: true }
}

/** Stops and removes the services; returns the files it removed. */
export function uninstallServices(platform: ServicePlatform, files: readonly ServiceFile[], env: NodeJS.ProcessEnv): string[] {
  const present = files.filter((f) => existsSync(f.path))
  if (platform === 'systemd') {
    if (present.length > 0) run('systemctl', ['--user', 'disable', '--now', ...present.map((f) => f.id)], env)
  } else {
    for (const f of present) run('launchctl', ['bootout', `gui/${uid()}/${f.id}`], env)
  }
  for (const f of present) rmSync(f.path, { force: true })
  if (platform === 'systemd' && present.length > 0) run('systemctl', ['--user', 'daemon-reload'], env)
  return present.map((f) => f.path)
}

/** Installed? Up to date? Running? For each expected file. */
export function serviceStates(platform: ServicePlatform, files: readonly ServiceFile[], env: NodeJS.ProcessEnv): ServiceState[] {
  return files.map((file) => {
    const installed = existsSync(file.path)
    const current = installed && readFileSync(file.path, 'utf8') === file.text
    let running = 'unknown'
    if (installed && platform === 'systemd') {
      const r = run('systemctl', ['--user', 'is-active', file.id], env)
      running = r.out.split('\n')[0] || 'unknown'
      if (!r.ok && /Failed to connect|not been booted|offline/i.test(r.out)) running = 'unknown'
    } else if (installed) {
      running = run('launchctl', ['print', `gui/${uid()}/${file.id}`], env).ok ? 'loaded' : 'not loaded'
    }
    return { file, installed, current, running }
  })
}
