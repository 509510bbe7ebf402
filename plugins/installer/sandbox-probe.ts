/**
 * `svc doctor --probe`: run attacks inside a harness's own sandbox, built from the configuration svc wrote, and
 * report each. Claude Code: sandbox-runtime (`srt`, the library Claude's sandbox is built on) with the `sandbox`
 * block translated into srt's settings (anthropics/sandbox-runtime README, "Configuration": `filesystem.denyRead`,
 * `allowWrite`, `denyWrite`, `network.allowedDomains`/`deniedDomains`; an empty allow list means no network).
 * Codex: `codex sandbox -- …` when the binary is on PATH. Each probe must FAIL inside for the layer to hold.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'

export interface ProbeResult {
  readonly harness: string
  readonly probe: string
  /** `blocked`: the sandbox stopped it (good); `reached`: it got through; `not-probed`: see `detail`. */
  readonly outcome: 'blocked' | 'reached' | 'not-probed'
  readonly detail: string
  /** Got through, as documented for this harness (README "Two layers", "What remains"): reported, not a failure. */
  readonly residual?: boolean
}

export interface ProbeTargets {
  readonly home: string
  readonly svcHome: string
  /** A file inside svcHome to read (the hook key, the token). */
  readonly secretFile: string
  /** A harness hook config to overwrite. */
  readonly hookConfig: string
  readonly port: number
  readonly cwd: string
}

type SrtSettings = { filesystem: { denyRead: string[]; allowWrite: string[]; denyWrite: string[] }; network: { allowedDomains: string[]; deniedDomains: string[] } }

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
  const abs = (list: string[] | undefined) => [...new Set((list ?? []).map((p) => resolveClaudePath(p, where.home, where.settingsDir, where.cwd)))]
  return {
    filesystem: { denyRead: abs(fs.denyRead), allowWrite: [where.cwd, where.tmp, ...abs(fs.allowWrite)], denyWrite: abs(fs.denyWrite) },
    network: { allowedDomains: [...(net.allowedDomains ?? [])], deniedDomains: [...(net.deniedDomains ?? [])] },
  }
}

/** The probes as shell commands: each exits 0 only when the attack got through. */
export function probeCommands(t: ProbeTargets): { probe: string; command: string; reads?: boolean }[] {
  const py = `import socket,sys\ns=socket.socket()\ns.settimeout(3)\ntry:\n  s.connect(("127.0.0.1",${t.port}))\nexcept Exception as e:\n  print(e); sys.exit(1)\nprint("connected")`
  return [
    // Harmless when they get through: the secret goes to /dev/null, the config is opened for append with nothing added.
    { probe: `read ${t.secretFile}`, command: `cat ${q(t.secretFile)} > /dev/null`, reads: true },
    { probe: `list ${t.svcHome}`, command: `ls -A ${q(t.svcHome)} | grep -q .`, reads: true },
    { probe: `write ${t.hookConfig}`, command: `: >> ${q(t.hookConfig)}` },
    { probe: `connect to 127.0.0.1:${t.port} (python)`, command: `python3 -c ${q(py)}` },
    { probe: `connect to 127.0.0.1:${t.port} (bash /dev/tcp)`, command: `exec 3<>/dev/tcp/127.0.0.1/${t.port}` },
  ]
}

function q(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
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
export function srtMissing(env: NodeJS.ProcessEnv): string[] {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return [`a supported platform (not ${process.platform})`]
  if (process.platform === 'darwin') return []
  return ['bwrap', 'socat', 'rg'].filter((bin) => !onPath(bin, env))
}

export function onPath(bin: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, bin)
    if (spawnSync('test', ['-x', candidate]).status === 0) return candidate
  }
  return undefined
}

/** Runs `command` under srt with `settings`; the exit status and output. */
export function runInSrt(settings: SrtSettings, command: string, opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; uid?: number; gid?: number }) {
  const cli = srtCli()
  if (!cli) throw new Error('@anthropic-ai/sandbox-runtime is not installed')
  const dir = mkdtempSync(join(tmpdir(), 'svc-srt-'))
  // Readable by the uid srt runs as (a probe as an unprivileged user); the settings hold no secret.
  chmodSync(dir, 0o755)
  try {
    const file = join(dir, 'srt-settings.json')
    writeFileSync(file, JSON.stringify(settings), { mode: 0o644 })
    const res = spawnSync(process.execPath, [cli, '--settings', file, '-c', command], { cwd: opts.cwd, env: opts.env, encoding: 'utf8', timeout: opts.timeoutMs ?? 30_000, ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.gid }) })
    return { status: res.status, output: `${res.stdout ?? ''}${res.stderr ?? ''}`.trim(), error: res.error }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Claude Code's probes through srt with its installed sandbox block. */
export function probeClaude(block: Record<string, unknown> | undefined, settingsDir: string, t: ProbeTargets, env: NodeJS.ProcessEnv): ProbeResult[] {
  const notProbed = (detail: string) => [{ harness: 'claude-code', probe: 'all', outcome: 'not-probed' as const, detail }]
  if (block?.enabled !== true) return notProbed('no enabled sandbox block in the Claude Code settings (run `svc install --sandbox`)')
  if (!srtCli()) return notProbed('@anthropic-ai/sandbox-runtime is not installed')
  const missing = srtMissing(env)
  if (missing.length > 0) return notProbed(`sandbox-runtime needs ${missing.join(', ')} on PATH (Debian: apt-get install bubblewrap socat ripgrep)`)
  const dir = mkdtempSync(join(tmpdir(), 'svc-probe-'))
  try {
    const settings = srtSettingsFromClaude(block, { home: t.home, settingsDir, cwd: t.cwd, tmp: dir })
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

/** Codex's probes through `codex sandbox` (its own entry point for running a command in its sandbox). */
export function probeCodex(t: ProbeTargets, env: NodeJS.ProcessEnv): ProbeResult[] {
  const codex = onPath('codex', env)
  if (!codex) return [{ harness: 'codex', probe: 'all', outcome: 'not-probed', detail: 'the codex binary is not on PATH, so `codex sandbox` cannot run the probes' }]
  const run = (command: string) => spawnSync(codex, ['sandbox', '--', 'bash', '-c', command], { cwd: t.cwd, env, encoding: 'utf8', timeout: 30_000 })
  const control = run('true')
  if (control.status !== 0) return [{ harness: 'codex', probe: 'all', outcome: 'not-probed', detail: `\`codex sandbox\` could not run a harmless command: ${`${control.stdout ?? ''}${control.stderr ?? ''}`.trim().split('\n').slice(-1)[0]}` }]
  return probeCommands(t).map(({ probe, command, reads }) => {
    const res = run(command)
    const detail = `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().split('\n').slice(-1)[0] ?? ''
    if (res.status !== 0) return { harness: 'codex', probe, outcome: 'blocked', detail }
    // Codex's sandbox lets commands read the whole disk: the shim's daemon authentication carries this part.
    return { harness: 'codex', probe, outcome: 'reached', detail: reads ? 'known: Codex does not hide $SVC_HOME from reads' : detail, ...(reads ? { residual: true } : {}) }
  })
}
