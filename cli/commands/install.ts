/**
 * `svc install` / `svc uninstall`: plan the hook entries for each detected (or named) harness, show the
 * unified diff, ask, then write atomically with backups. Runs on the host, so it edits the host's
 * harness configs even when the daemon runs in a container.
 */
import { createInterface } from 'node:readline/promises'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { Command, Option } from 'commander'
import type { HarnessDefinition } from '../../core/index.ts'
import { harnessPlugins, PLANNED_HARNESSES } from '../../harnesses/index.ts'
import { applyInstall, applyUninstall, installShim } from '../../plugins/installer/apply.ts'
import { planInstall, planUninstall, type Plan } from '../../plugins/installer/plan.ts'
import { HarnessSelectionError, selectHarnesses } from '../../plugins/installer/select.ts'
import { CliError, type CliIo } from '../io.ts'
import { mintOnDaemon } from '../signer/mint-flow.ts'
import { daemonUrl, svcHome } from '../paths.ts'
import { addTierOptions } from './session.ts'

interface CommonOptions {
  harness?: string[]
  scope: 'user' | 'repo'
  repo?: string
  dryRun?: boolean
  yes?: boolean
  url?: string
  home?: string
  tier: string
  code?: string
  passphrase?: string
}

const registered = (): ReadonlyMap<string, HarnessDefinition> => new Map(harnessPlugins.map((p) => [p.harness.id, p.harness]))

function printPlan(io: CliIo, plan: Plan): void {
  for (const change of plan.changes) if (change.diff) io.out(change.diff)
  for (const note of plan.notes) io.out(`note: ${note}`)
  for (const warning of plan.warnings) io.err(`warning: ${warning}`)
}

/** Asks y/N: on a terminal interactively, otherwise from the first line of stdin. */
async function confirm(io: CliIo, question: string): Promise<boolean> {
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr })
    try {
      return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
    } finally {
      rl.close()
    }
  }
  io.err(`${question} [y/N]`)
  return /^y(es)?$/i.test((await io.readStdin()).split(/\r?\n/)[0]?.trim() ?? '')
}

function checkTier(opts: CommonOptions): void {
  if (opts.tier === 'totp' && (!opts.code || !/^\d{6}$/.test(opts.code) || !opts.passphrase)) throw new CliError('--tier totp needs --code <6 digits> and --passphrase')
}

function selection(opts: CommonOptions) {
  const env = { home: homedir(), ...(opts.repo || opts.scope === 'repo' ? { repo: resolve(opts.repo ?? '.') } : {}), env: {} }
  try {
    return { env, ...selectHarnesses(registered(), new Set(PLANNED_HARNESSES), opts.harness, env, opts.scope) }
  } catch (err) {
    if (err instanceof HarnessSelectionError) throw new CliError(err.message)
    throw err
  }
}

// Hooks are decided with the daemon's current session: mint one with the chosen tier (SPEC: install mints).
async function mintSession(io: CliIo, opts: CommonOptions): Promise<void> {
  try {
    const res = await mintOnDaemon(io, { tier: opts.tier, home: svcHome(io.env, opts.home), baseUrl: daemonUrl(io.env, opts.url), code: opts.code, passphrase: opts.passphrase })
    io.out(`session: ${res.session_id}`)
  } catch (err) {
    io.err(`warning: hooks are installed, but no session was minted (${(err as Error).message}); until one exists every hook call is denied`)
  }
}

function baseCommand(name: string, description: string): Command {
  const cmd = new Command(name)
    .description(description)
    .option('--harness <id...>', 'harness ids (default: every detected one): claude-code, codex, gemini, cursor')
    .addOption(new Option('--scope <scope>', 'user-level configs or one repository').choices(['user', 'repo']).default('user'))
    .option('--repo <dir>', 'repository root for --scope repo (default: current directory)')
    .option('--dry-run', 'show the diff and change nothing')
    .option('--yes', 'do not ask before writing (for scripts)')
    .option('--url <url>', 'daemon base URL written into the hooks (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--home <dir>', 'svc home for the shim and install manifest ($SVC_HOME, default ~/.svc)')
  return addTierOptions(cmd, 'unattested')
}

export function makeInstallCommand(io: CliIo): Command {
  return baseCommand('install', 'install svc hooks into harness configs (shows the diff, asks first)')
    .option('--fail-open', 'let tool calls through when the daemon is down (default: fail closed)')
    .addOption(new Option('--transport <kind>', 'command shim, or Claude Code’s native HTTP hook (fails open)').choices(['command', 'http']).default('command'))
    .action(async (opts: CommonOptions & { failOpen?: boolean; transport: 'command' | 'http' }) => {
      checkTier(opts)
      const { env, harnesses, skipped } = selection(opts)
      for (const s of skipped) io.err(`skipped ${s.harness}: ${s.reason}`)
      if (harnesses.length === 0) throw new CliError(`no supported harness detected at ${opts.scope} scope; name one with --harness`)
      const req = { harnesses, scope: opts.scope, env, svcHome: svcHome(io.env, opts.home), daemonUrl: daemonUrl(io.env, opts.url), failOpen: !!opts.failOpen, transport: opts.transport }
      const plan = planInstall(req)
      if (!(await reviewPlan(io, plan, opts, { unchanged: 'svc hooks are already installed; nothing to change', question: 'write these changes to', refused: 'nothing written' }))) {
        // Re-running install after an upgrade refreshes the shim (and makes the hook key) even when no config changes.
        if (plan.changes.length === 0 && !opts.dryRun) io.out(`shim refreshed: ${installShim(req.svcHome)}`)
        return
      }
      applyInstall(req, plan.token)
      io.out(`installed svc hooks for ${harnesses.map((h) => h.id).join(', ')} (${plan.changes.length} file(s); backups in ${req.svcHome}/install/backups)`)
      await mintSession(io, opts)
    })
}

/**
 * Shows a plan and decides whether to apply it: not when it changes nothing or is a dry run; otherwise
 * only with --yes or the user's answer (a "no" is an error: nothing was written).
 */
async function reviewPlan(io: CliIo, plan: Plan, opts: CommonOptions, text: { unchanged: string; question: string; refused: string }): Promise<boolean> {
  printPlan(io, plan)
  if (plan.changes.length === 0) {
    io.out(text.unchanged)
    return false
  }
  if (opts.dryRun) return false
  if (!opts.yes && !(await confirm(io, `${text.question} ${plan.changes.length} file(s)?`))) throw new CliError(text.refused)
  return true
}

export function makeUninstallCommand(io: CliIo): Command {
  return baseCommand('uninstall', 'remove every hook entry svc wrote (and nothing else)').action(async (opts: CommonOptions) => {
    checkTier(opts)
    const harnesses = opts.harness?.length ? selection(opts).harnesses : [...registered().values()]
    const req = { svcHome: svcHome(io.env, opts.home), harnesses, ...(opts.scope === 'repo' || opts.repo ? { scope: opts.scope } : {}) }
    const plan = planUninstall(req)
    if (!(await reviewPlan(io, plan, opts, { unchanged: 'no svc hooks are installed; nothing to change', question: 'change', refused: 'nothing changed' }))) return
    applyUninstall(req, plan.token)
    io.out(`removed svc hooks from ${plan.changes.length} file(s)`)
  })
}
