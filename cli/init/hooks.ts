/**
 * `svc init`'s hook step and its proof: the install plan for the detected harnesses (shown as a diff before
 * anything is written), the install itself through `svc install` (so the shim, the trust steps and the
 * counts are exactly what that command does), and a live deny: a real Claude Code PreToolUse payload for
 * `cat ~/.ssh/id_rsa` sent through the installed shim to the running daemon.
 */
import { spawnSync } from 'node:child_process'
import type { HarnessDefinition } from '../../harness-contract/index.ts'
import { harnessPlugins, PLANNED_HARNESSES } from '../../harnesses/index.ts'
import { harnessEnvOf, HarnessSelectionError, loadInstallTools, selectHarnesses, shimPath, shimState } from '../../plugins/installer/index.ts'
import { CliError, confirm, type CliIo } from '../io.ts'
import { userHomeOf } from '../paths.ts'

type Plan = ReturnType<Awaited<ReturnType<typeof loadInstallTools>>['planInstall']>

export interface HookPlan {
  readonly harnesses: readonly string[]
  readonly skipped: readonly string[]
  readonly plan: Plan
  readonly shimCurrent: boolean
}

/** The harnesses found (or named) and what installing their hooks would change; an error when there is none. */
export function planHooks(io: CliIo, home: string, url: string, named?: string[]): HookPlan {
  const registered = new Map<string, HarnessDefinition>(harnessPlugins.map((p) => [p.harness.id, p.harness]))
  const env = harnessEnvOf(io.env, userHomeOf(io.env), registered.values(), undefined)
  let selected
  try {
    selected = selectHarnesses(registered, new Set(PLANNED_HARNESSES), named, env, 'user')
  } catch (err) {
    if (err instanceof HarnessSelectionError) throw new CliError(err.message)
    throw err
  }
  if (selected.harnesses.length === 0)
    throw new CliError(
      `no supported agent harness was found for this user (looked for ${[...registered.keys()].join(', ')}): install one first, or name one with --harness; nothing was changed`,
    )
  return {
    harnesses: selected.harnesses.map((h) => h.id),
    skipped: selected.skipped.map((s) => s.harness),
    plan: planInstallNow(selected.harnesses, env, home, url),
    shimCurrent: shimState(home) === 'current',
  }
}

let tools: Awaited<ReturnType<typeof loadInstallTools>> | undefined
function planInstallNow(harnesses: readonly HarnessDefinition[], env: ReturnType<typeof harnessEnvOf>, home: string, url: string): Plan {
  if (!tools) throw new Error('install tools not loaded')
  return tools.planInstall({ harnesses, scope: 'user', env, svcHome: home, daemonUrl: url, failOpen: false, transport: 'command' })
}

/** Loads the installer's planner once (it is large: only `svc init` and `svc install` need it). */
export async function loadPlanner(): Promise<void> {
  tools ??= await loadInstallTools()
}

/** Shows the diff, asks (unless --yes), then runs `svc install` for those harnesses without repeating the diff. */
export async function installHooks(io: CliIo, hooks: HookPlan, opts: { home: string; url: string; yes: boolean }): Promise<void> {
  for (const change of hooks.plan.changes) if (change.diff) io.out(change.diff)
  for (const note of hooks.plan.notes) io.out(`note: ${note}`)
  if (hooks.plan.changes.length > 0 && !opts.yes && !(await confirm(io, `install svc hooks: write these changes to ${hooks.plan.changes.length} file(s)?`, () => io.ask(''))))
    throw new CliError('hooks not installed (answered no); the daemon and the renewer keep running: `svc init --undo` stops them')
  const diffs = new Set(hooks.plan.changes.map((c) => c.diff))
  const quiet: CliIo = { ...io, out: (text) => (diffs.has(text) || text.startsWith('note: ') ? undefined : io.out(text)) }
  const { main } = await import('../main.ts')
  const args = ['install', '--yes', '--home', opts.home, '--url', opts.url, '--harness', ...hooks.harnesses]
  if ((await main(args, quiet)) !== 0) throw new CliError(`\`svc ${args.join(' ')}\` failed (above)`)
}

/** A real hook call, as Claude Code makes it, through the installed shim: the agent asks to read an SSH key. */
export async function liveDenyDemo(io: CliIo, home: string, url: string, env: NodeJS.ProcessEnv): Promise<void> {
  const command = 'cat ~/.ssh/id_rsa'
  const payload = {
    session_id: 'svc-init-demo',
    transcript_path: '/dev/null',
    cwd: userHomeOf(io.env),
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: `svc-init-demo-${Date.now()}`,
  }
  const shim = shimPath(home)
  const r = spawnSync(shim, ['claude-code', 'PreToolUse', `--url=${url}`], { input: JSON.stringify(payload), env, encoding: 'utf8', timeout: 30_000 })
  let decision: string | undefined
  let reason = (r.stderr ?? '').trim()
  try {
    const answer = JSON.parse(r.stdout || '{}') as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } }
    decision = answer.hookSpecificOutput?.permissionDecision
    reason = answer.hookSpecificOutput?.permissionDecisionReason ?? reason
  } catch {
    decision = undefined
  }
  io.out(`demo: an agent asks to run \`${command}\`; svc-hook (${shim}) asks the daemon:`)
  if (decision === 'deny' || r.status === 2) io.out(`  DENIED: ${reason.split('\n')[0]}`)
  else io.err(`warning: the demo call was not denied (exit ${r.status}, ${decision ?? 'no decision'}${reason ? `: ${reason}` : ''}): check \`svc status\``)
}
