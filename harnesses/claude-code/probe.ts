/**
 * `svc doctor --probe` for Claude Code: the attacks run under sandbox-runtime (`srt`, the library Claude's sandbox
 * is built on) with the `sandbox` block svc wrote translated into srt's settings (anthropics/sandbox-runtime
 * README, "Configuration": `filesystem.denyRead`, `allowWrite`, `denyWrite`, `network.allowedDomains`/
 * `deniedDomains`; an empty allow list means no network). Each probe must FAIL inside for the layer to hold.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { ProbeResult, ProbeTargets } from '../../harness-contract/index.ts'
import { asRecord, onPath, probeCommands, readJsonc } from '../kit/index.ts'

export type SrtSettings = {
  filesystem: { denyRead: string[]; allowRead: string[]; allowWrite: string[]; denyWrite: string[] }
  network: { allowedDomains: string[]; deniedDomains: string[] }
  credentials?: { envVars: { name: string; mode: 'deny' }[] }
}
type Env = Readonly<Record<string, string | undefined>>

/** A Claude-settings path (`~/x`, `//abs`, `/rel-to-settings`, `./rel`) as the absolute path srt takes. */
function resolveClaudePath(path: string, home: string, settingsDir: string, cwd: string): string {
  if (path === '~') return home
  if (path.startsWith('~/')) return join(home, path.slice(2))
  if (path.startsWith('//')) return path.slice(1)
  if (path.startsWith('/')) return join(settingsDir, path)
  return join(cwd, path)
}

/**
 * srt settings equivalent to a Claude Code `sandbox` block: its deny lists resolved as Claude resolves them, writes
 * allowed where Claude allows them by default (the working directory and the temp dir), and no network at all
 * unless the block allow-lists a domain (srt: empty `allowedDomains` = no network).
 */
export function srtSettingsFromClaude(block: Record<string, unknown>, where: { home: string; settingsDir: string; cwd: string; tmp: string }): SrtSettings {
  const fs = (block.filesystem ?? {}) as Record<string, string[] | undefined>
  const net = (block.network ?? {}) as Record<string, string[] | undefined>
  const envVars = ((block.credentials ?? {}) as { envVars?: { name: string; mode: 'deny' }[] }).envVars
  const abs = (list: string[] | undefined) => [...new Set((list ?? []).map((p) => resolveClaudePath(p, where.home, where.settingsDir, where.cwd)))]
  return {
    filesystem: { denyRead: abs(fs.denyRead), allowRead: abs(fs.allowRead), allowWrite: [where.cwd, where.tmp, ...abs(fs.allowWrite)], denyWrite: abs(fs.denyWrite) },
    network: { allowedDomains: [...(net.allowedDomains ?? [])], deniedDomains: [...(net.deniedDomains ?? [])] },
    ...(envVars?.length ? { credentials: { envVars } } : {}),
  }
}

/** The srt CLI of the installed @anthropic-ai/sandbox-runtime, or undefined. */
export function srtCli(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/dist/cli.js')
  } catch {
    return undefined
  }
}

/** What srt needs on Linux (bubblewrap, socat, ripgrep: sandbox-runtime README, "Linux"), missing ones named. */
export function srtMissing(env: Env): string[] {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return [`a supported platform (not ${process.platform})`]
  if (process.platform === 'darwin') return []
  return ['bwrap', 'socat', 'rg'].filter((bin) => !onPath(bin, env))
}

/** Runs `command` under srt with `settings`; the exit status and output. */
export function runInSrt(settings: SrtSettings, command: string, opts: { cwd: string; env: Env; timeoutMs?: number; uid?: number; gid?: number }) {
  const cli = srtCli()
  if (!cli) throw new Error('@anthropic-ai/sandbox-runtime is not installed')
  const dir = mkdtempSync(join(tmpdir(), 'svc-srt-'))
  // Readable by the uid srt runs as (a probe as an unprivileged user); the settings hold no secret.
  chmodSync(dir, 0o755)
  try {
    const file = join(dir, 'srt-settings.json')
    writeFileSync(file, JSON.stringify(settings), { mode: 0o644 })
    const res = spawnSync(process.execPath, [cli, '--settings', file, '-c', command], {
      cwd: opts.cwd,
      env: opts.env,
      encoding: 'utf8',
      timeout: opts.timeoutMs ?? 30_000,
      ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.gid }),
    })
    return { status: res.status, output: `${res.stdout ?? ''}${res.stderr ?? ''}`.trim(), error: res.error }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The `sandbox` block of the settings svc wrote it into (managed settings first: they win over the user's). */
function sandboxBlock(files: readonly string[]): { block?: Record<string, unknown>; file?: string } {
  const file = files.find((f) => f.includes('managed')) ?? files[0]
  try {
    return { file, block: file ? asRecord(readJsonc(readFileSync(file, 'utf8'))?.sandbox) : undefined }
  } catch {
    return { file }
  }
}

/** Claude Code's probes through srt with its installed sandbox block. */
export function probeClaude(t: ProbeTargets, files: readonly string[], env: Env): ProbeResult[] {
  const notProbed = (detail: string) => [{ harness: 'claude-code', probe: 'all', outcome: 'not-probed' as const, detail }]
  const { block, file } = sandboxBlock(files)
  if (block?.enabled !== true) return notProbed('no enabled sandbox block in the Claude Code settings (run `svc install --sandbox`)')
  if (!srtCli()) return notProbed('@anthropic-ai/sandbox-runtime is not installed')
  const missing = srtMissing(env)
  if (missing.length > 0) return notProbed(`sandbox-runtime needs ${missing.join(', ')} on PATH (Debian: apt-get install bubblewrap socat ripgrep)`)
  const dir = mkdtempSync(join(tmpdir(), 'svc-probe-'))
  try {
    const settings = srtSettingsFromClaude(block, { home: t.home, settingsDir: file ? dirname(file) : t.home, cwd: t.cwd, tmp: dir })
    // A sandbox that cannot run `true` would report every attack as blocked: say it could not probe instead.
    const control = runInSrt(settings, 'true', { cwd: t.cwd, env })
    if (control.status !== 0) return notProbed(`sandbox-runtime could not run a harmless command: ${control.output.split('\n').slice(-1)[0] ?? control.error?.message}`)
    return probeCommands(t).map(({ probe, command }) => {
      const res = runInSrt(settings, command, { cwd: t.cwd, env })
      return { harness: 'claude-code', probe, outcome: res.status === 0 ? 'reached' : 'blocked', detail: res.output.split('\n').slice(-1)[0] ?? '' }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
