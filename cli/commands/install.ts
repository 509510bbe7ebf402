/**
 * `svc install` / `svc uninstall`: plan the hook entries for each detected (or named) harness, show the
 * unified diff, ask, then write atomically with backups. Runs on the host, so it edits the host's
 * harness configs even when the daemon runs in a container.
 */
import { protectedPorts } from '../../core/index.ts'
import { resolve } from 'node:path'
import { Command, Option } from 'commander'
import type { HarnessDefinition, HarnessEnv } from '../../harness-contract/index.ts'
import { harnessPlugins, PLANNED_HARNESSES } from '../../harnesses/index.ts'
import {
  entriesOf,
  harnessEnvOf,
  HarnessSelectionError,
  loadInstallTools,
  networkNeeds,
  readManifest,
  sandboxFacts,
  selectHarnesses,
  shimPath,
  shimState,
  type Plan,
} from '../../plugins/installer/index.ts'
import { protectedSet } from '../../plugins/protected-set/index.ts'
import { installClaudeSkill, removeClaudeSkill } from '../false-positive/skill.ts'
import { CliError, confirm, type CliIo } from '../io.ts'
import type { CurrentSession } from '../agent/renewer.ts'
import { callDaemon } from '../http.ts'
import { mintOnDaemon, totpSecrets } from '../signer/mint-flow.ts'
import { hookRoute } from '../service/hook-route.ts'
import { daemonPort, daemonUrl, SHIPPED_POLICIES_DIR, svcHome, userHomeOf } from '../paths.ts'
import { installedHooks } from '../status/collect.ts'
import { addTierOptions } from './session.ts'

// The installer's planner and config editors: this module loads only when `svc install` or `uninstall` runs.
const { applyInstall, applyUninstall, installShim, planInstall, planUninstall } = await loadInstallTools()

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

type InstallOptions = CommonOptions & { failOpen?: boolean; withSkill?: boolean; transport: 'command' | 'http'; mcp?: boolean; socket?: string } & SandboxOptions
type SandboxOptions = { sandbox?: boolean; system?: boolean; url?: string; allowDomains?: string[] }

const registered = (): ReadonlyMap<string, HarnessDefinition> => new Map(harnessPlugins.map((p) => [p.harness.id, p.harness]))

function printPlan(io: CliIo, plan: Plan): void {
  for (const change of plan.changes) if (change.diff) io.out(change.diff)
  for (const note of plan.notes) io.out(`note: ${note}`)
  for (const warning of plan.warnings) io.err(`warning: ${warning}`)
}

/** Asks for the TOTP secrets after the diff was shown and before anything is written, so a missing code changes nothing. */
async function checkTier(io: CliIo, opts: CommonOptions): Promise<void> {
  if (opts.tier === 'totp') Object.assign(opts, await totpSecrets(io, opts))
}

function selection(io: CliIo, opts: CommonOptions) {
  const env = harnessEnvOf(io.env, userHomeOf(io.env), registered().values(), opts.repo || opts.scope === 'repo' ? resolve(opts.repo ?? '.') : undefined)
  try {
    return { env, ...selectHarnesses(registered(), new Set(PLANNED_HARNESSES), opts.harness, env, opts.scope) }
  } catch (err) {
    if (err instanceof HarnessSelectionError) throw new CliError(err.message)
    throw err
  }
}

// Hooks are decided with the daemon's current session: mint one with the chosen tier (SPEC: install mints). Without
// an explicit --tier, an active session is kept: replacing it with an unattested one would weaken what is in force.
async function mintSession(io: CliIo, opts: CommonOptions, tierGiven: boolean): Promise<void> {
  const baseUrl = daemonUrl(io.env, opts.url)
  const current = await callDaemon<CurrentSession>(baseUrl, '/v1/sessions/current').catch(() => undefined)
  if (current === undefined) {
    io.err(
      `warning: hooks are installed, but the svc daemon at ${baseUrl} is not running: every hook call is denied until it runs with a session (\`svc service install --agent <tier>\` keeps both going, or \`svc daemon\` then \`svc session create --tier <tier>\`)`,
    )
    return
  }
  if (!tierGiven && current.state === 'active' && current.session) {
    io.out(`session: keeping the active session ${current.session.session_id} (signer ${current.session.signer}); --tier mints a new one`)
    return
  }
  try {
    const res = await mintOnDaemon(io, { tier: opts.tier, home: svcHome(io.env, opts.home), baseUrl, code: opts.code, passphrase: opts.passphrase })
    io.out(`session: ${res.session_id}`)
  } catch (err) {
    const why = (err as Error).message
    if (current?.state === 'active') io.err(`warning: no new session was minted (${why}); the active session ${current.session?.session_id} stays in force`)
    else if (current === undefined)
      io.err(
        `warning: hooks are installed, but the daemon at ${baseUrl} did not answer (${why}): every hook call is denied until it runs (\`svc daemon\`, or \`svc service install\`)`,
      )
    else
      io.err(
        `warning: hooks are installed, but no session was minted (${why}); every hook call is denied until one exists: run \`svc agent --tier <tier>\` or \`svc session create --tier <tier>\``,
      )
  }
}

/** The options install and uninstall share: which harness configs, and how to confirm. */
function baseCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .option('--harness <id...>', `harness ids (default: every detected one): ${[...registered().keys()].join(', ')}`)
    .addOption(new Option('--scope <scope>', 'user-level configs or one repository').choices(['user', 'repo']).default('user'))
    .option('--repo <dir>', 'repository root for --scope repo (default: current directory)')
    .option('--dry-run', 'show the diff and change nothing')
    .option('--yes', 'do not ask before writing (for scripts)')
    .option('--home <dir>', 'svc home for the shim and install manifest ($SVC_HOME, default ~/.svc)')
}

export function makeInstallCommand(io: CliIo): Command {
  const cmd = baseCommand('install', 'install svc hooks into harness configs (shows the diff, asks first)').option(
    '--url <url>',
    'daemon base URL written into the hooks (default $SVC_URL or http://127.0.0.1:7878)',
  )
  return addTierOptions(cmd, 'unattested')
    .option('--fail-open', 'let tool calls through when the daemon is down (default: fail closed)')
    .option('--with-skill', 'also install the false-positive skill for Claude Code (.claude/skills/svc-false-positive)')
    .addOption(new Option('--transport <kind>', 'command shim, or the harness’s native HTTP hook where it has one (fails open)').choices(['command', 'http']).default('command'))
    .option('--socket <path>', "a daemon under its own account: its hook socket (default $SVC_HOOK_SOCKET or /run/svc/hook.sock; used whenever the daemon is another account's)")
    .option('--mcp', 'also run every stdio MCP server of the harness configs through `svc mcp-proxy` (as `svc mcp wrap`)')
    .option('--sandbox', 'also configure each harness’s own OS sandbox for the agent’s commands (svc home hidden, configs read-only, daemon ports unreachable)')
    .option('--system', 'with --sandbox: write the harnesses’ managed (root-owned) settings instead of the user’s; needs root')
    .option('--allow-domains <hosts...>', 'with --sandbox: hosts the agent’s commands may reach (`detected`: the registries and git remotes of the project)')
    .action(async (opts: InstallOptions) => {
      const tierGiven = cmd.getOptionValueSource('tier') !== 'default'
      const { env, harnesses, skipped } = selection(io, opts)
      if (opts.mcp) {
        const { runWrap } = await import('../mcp-wrap/command.ts')
        await runWrap(io, 'wrap', undefined, { yes: opts.yes, dryRun: opts.dryRun, repo: env.repo }, (question) => confirm(io, question))
      }
      for (const s of skipped) io.err(`skipped ${s.harness}: ${s.reason}`)
      if (harnesses.length === 0) throw new CliError(`no supported harness detected at ${opts.scope} scope; name one with --harness`)
      const home = svcHome(io.env, opts.home)
      const url = daemonUrl(io.env, opts.url)
      const hookSocket = hookRoute(url, io.env, opts.socket, (line) => io.err(line))
      if (hookSocket && opts.transport === 'http')
        throw new CliError(`the daemon runs as its own account and takes hooks on ${hookSocket}, which native HTTP hooks cannot call: use --transport command`)
      if (hookSocket) io.out(`hooks call the daemon's socket ${hookSocket} (its account alone can create it), through the shim's curl path`)
      const req = {
        harnesses,
        scope: opts.scope,
        env,
        svcHome: home,
        daemonUrl: url,
        ...(hookSocket ? { hookSocket } : {}),
        failOpen: !!opts.failOpen,
        transport: opts.transport,
        ...sandboxRequest(io, opts, env, home),
      }
      const plan = planInstall(req)
      // Entries in place but the shim they run is missing or from another version: refresh it (no config changes).
      const shim = shimState(req.svcHome)
      if (plan.changes.length === 0 && shim !== 'current') {
        printPlan(io, plan)
        if (opts.dryRun) return io.out(`would refresh the ${shim} shim ${shimPath(req.svcHome)}`)
        await checkTier(io, opts)
        installShim(req.svcHome)
        io.out(`refreshed the ${shim} shim ${shimPath(req.svcHome)}; the hook entries were already current`)
        await mintSession(io, opts, tierGiven)
        return finishHarnessTrust(io, harnesses, req.svcHome, env.repo ?? env.home)
      }
      if (
        !(await reviewPlan(io, plan, opts, { unchanged: 'svc hooks are already installed; nothing to change', question: 'write these changes to', refused: 'nothing written' }))
      ) {
        if (!opts.dryRun && plan.changes.length === 0) await finishHarnessTrust(io, harnesses, req.svcHome, env.repo ?? env.home)
        return
      }
      await checkTier(io, opts)
      applyInstall(req, plan.token)
      // Not "installed" until every harness will run the entries (trusted, where it asks for that); this throws when one will not.
      await finishHarnessTrust(io, harnesses, req.svcHome, env.repo ?? env.home)
      // Counted as `svc status` counts them (the same function), so the two never disagree.
      const hooks = installedHooks(req.svcHome).filter((h) => harnesses.some((d) => d.id === h.harness))
      io.out(
        `installed svc hooks${opts.sandbox ? ' and the sandbox layer' : ''} for ${harnesses.map((h) => h.id).join(', ')} (${plan.changes.length} file(s); backups in ${req.svcHome}/install/backups)`,
      )
      for (const h of hooks) io.out(`  ${h.harness} (${h.scope}) ${h.file}: ${h.entries} entries`)
      if (opts.withSkill && harnesses.some((h) => h.id === 'claude-code')) {
        const skill = installClaudeSkill(opts.scope === 'repo' ? env.repo! : env.home)
        io.out(`false-positive skill: ${skill.path}${skill.changed ? '' : ' (already installed)'}`)
      }
      await mintSession(io, opts, tierGiven)
    })
}

/** The `sandbox` part of an install request (`--sandbox`, `--system`), or nothing. */
function sandboxRequest(io: CliIo, opts: SandboxOptions, env: HarnessEnv, home: string) {
  if (opts.system && !opts.sandbox) throw new CliError('--system only applies with --sandbox (the managed sandbox settings)')
  if (opts.allowDomains && !opts.sandbox) throw new CliError('--allow-domains only applies with --sandbox (the hosts sandboxed commands may reach)')
  if (!opts.sandbox) return {}
  // SVC_SYSTEM_ROOT relocates /etc for tests; the real one needs root, or the files would be the agent's to edit.
  const systemRoot = io.env.SVC_SYSTEM_ROOT ?? '/etc'
  if (opts.system && !io.env.SVC_SYSTEM_ROOT && process.getuid?.() !== 0)
    throw new CliError('--system writes managed settings under /etc that only root may change: run it as root (sudo svc install --sandbox --system)')
  let listening: number | undefined
  try {
    listening = Number(new URL(daemonUrl(io.env, opts.url)).port) || daemonPort(io.env)
  } catch {
    listening = daemonPort(io.env)
  }
  const ports = protectedPorts(io.env, listening)
  const allowedDomains = allowedHosts(io, opts.allowDomains, env.repo ?? process.cwd())
  return {
    sandbox: sandboxFacts({
      registered: [...registered().values()],
      env,
      svcHome: home,
      ports,
      policiesDir: SHIPPED_POLICIES_DIR,
      system: !!opts.system,
      systemRoot,
      allowedDomains,
      set: protectedSet(io.env),
      vars: io.env,
    }),
  }
}

/** The hosts `--allow-domains` names (`detected`: the project's registries and git remotes); offers them when none is named. */
function allowedHosts(io: CliIo, named: readonly string[] | undefined, project: string): string[] {
  const needs = networkNeeds(project)
  if (!named) {
    if (needs.length > 0)
      io.err(
        `note: ${project} uses ${needs.map((n) => `${n.domain} (${n.why})`).join(', ')}; sandboxed commands reach none of them. Allow them with --allow-domains detected (commands could then also send data there)`,
      )
    return []
  }
  const hosts = named.flatMap((h) => (h === 'detected' ? needs.map((n) => n.domain) : h.split(',')))
  const loopback = hosts.filter((h) => /^(localhost|127\.|0\.0\.0\.0|\[?::1\]?$)/.test(h))
  if (loopback.length > 0) throw new CliError(`--allow-domains: ${loopback.join(', ')} is this host, where the daemon listens; it stays unreachable`)
  return [...new Set(hosts.filter(Boolean))]
}

/**
 * Hooks a harness will not run until the user trusts them are not installed yet: each such harness's `trust`
 * step trusts exactly svc's own entries; when it cannot, fail and say what to do.
 */
async function finishHarnessTrust(io: CliIo, harnesses: readonly HarnessDefinition[], svcHomeDir: string, cwd: string): Promise<void> {
  for (const h of harnesses.filter((d) => d.trust)) {
    const result = await h.trust!.grant({ svcHome: svcHomeDir, env: io.env, cwd, entries: entriesOf(readManifest(svcHomeDir), h.id) }, 'install')
    if (!result.ok) throw new CliError(result.line)
    io.out(result.line)
  }
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
  return baseCommand('uninstall', 'remove every hook entry svc wrote (and nothing else)')
    .option('--all', 'undo everything `svc init` did: hooks, daemon and renewer, the signer and password it set (as `svc init --undo`)')
    .action(async (opts: CommonOptions & { all?: boolean }) => {
      if (opts.all) return (await import('../init/undo.ts')).undoInit(io, { home: opts.home })
      const harnesses = opts.harness?.length ? selection(io, opts).harnesses : [...registered().values()]
      const req = { svcHome: svcHome(io.env, opts.home), harnesses, ...(opts.scope === 'repo' || opts.repo ? { scope: opts.scope } : {}) }
      const plan = planUninstall(req)
      const applied = await reviewPlan(io, plan, opts, { unchanged: 'no svc hooks are installed; nothing to change', question: 'change', refused: 'nothing changed' })
      if (applied) applyUninstall(req, plan.token)
      // The false-positive skill (`install --with-skill`) is svc's too: it goes with the hooks, or alone when they are already gone.
      if (!opts.harness?.length || opts.harness.includes('claude-code')) removeSkills(io, opts)
      if (!applied) return
      io.out(`removed svc hooks from ${plan.changes.length} file(s)`)
      const manifest = readManifest(req.svcHome)
      for (const h of [...registered().values()].filter((d) => d.trust)) {
        const revoked = await h.trust!.revoke({ svcHome: req.svcHome, env: io.env, cwd: userHomeOf(io.env), entries: entriesOf(manifest, h.id) })
        if (revoked) io.out(revoked)
      }
    })
}

/** Removes the Claude Code false-positive skill at user scope and, with --repo/--scope repo, in the repository. */
function removeSkills(io: CliIo, opts: CommonOptions): void {
  const roots = [userHomeOf(io.env), ...(opts.repo || opts.scope === 'repo' ? [resolve(opts.repo ?? '.')] : [])]
  for (const root of roots) {
    const result = removeClaudeSkill(root, opts.dryRun)
    if (!result) continue
    if (result.removed) io.out(`removed the false-positive skill ${result.path}`)
    else if (result.reason === 'dry run') io.out(`would remove the false-positive skill ${result.path}`)
    else io.err(`left ${result.path}: ${result.reason}`)
  }
}
