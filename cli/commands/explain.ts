/**
 * `svc explain "<command>"` (or `--tool NAME --input JSON`): shows what the engine sees and decides for a
 * tool call — the parsed simple commands, signals, paths and URLs, every gate evaluated with its layer and
 * why it matched or not (`--all`; by default the gates that matched and a count of the rest), and the final
 * verdict. Runs the daemon's engine path in-process over a temp copy of the policy (cli/policy/snapshot.ts): no
 * daemon needed, and nothing is written, not even `$SVC_HOME` itself.
 */
import { protectedPorts } from '../../core/index.ts'
import { Command } from 'commander'
import type { Decision, EvalRequest, GateTrace, ToolCall } from '../../core/index.ts'
import { explainGates, type GateLine } from '../../plugins/rule-lifecycle/index.ts'
import { harnessCall } from '../../plugins/rule-lifecycle/index.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonPort, svcHome, userHomeOf } from '../paths.ts'
import { policySnapshot } from '../policy/snapshot.ts'

interface Options {
  harness?: string
  exitCode?: boolean
  tool: string
  input?: string
  cwd?: string
  home?: string
  json?: boolean
  all?: boolean
}

/** Builds the `svc explain` command. */
export function makeExplainCommand(io: CliIo): Command {
  return new Command('explain')
    .description('show how a tool call is analysed and decided, through the same engine path as the daemon')
    .argument('[command]', 'shell command to explain (for the Bash tool)')
    .option('--tool <name>', 'tool name', 'Bash')
    .option('--input <json>', 'tool input as a JSON object (instead of a command)')
    .option('--cwd <dir>', 'working directory of the call', process.cwd())
    .option('--home <dir>', '$SVC_HOME whose policy layers to use')
    .option('--harness <id>', 'the harness that sends the call: its native tool name is mapped exactly as the hook path maps it (e.g. gemini run_shell_command → Bash)')
    .option('--exit-code', 'exit 1 when the verdict is deny (for scripts and CI)')
    .option('--all', 'list every gate evaluated, not only those that matched')
    .option('--json', 'print the explanation as JSON')
    .action(async (command: string | undefined, opts: Options) => {
      const input = parseInput(command, opts)
      const userHome = io.env.SVC_USER_HOME ?? userHomeOf(io.env)
      const home = svcHome(io.env, opts.home)
      // `$SVC_PORTS` as a daemon would bind it: the port clients reach it on (SVC_URL or 7878), plus SVC_PROTECTED_PORTS.
      let svcPorts: readonly number[]
      try {
        svcPorts = protectedPorts(io.env, daemonPort(io.env))
      } catch (err) {
        throw new CliError((err as Error).message, 2)
      }
      const snapshot = await policySnapshot(home, { userHome, svcPorts, keepMode: true })
      const engine = snapshot.engine
      try {
        let call: ToolCall = { sessionId: 'explain', source: 'explain', tool: opts.tool, input, cwd: opts.cwd }
        if (opts.harness) {
          try {
            call = { ...harnessCall(engine.registry, opts.harness, opts.tool, input, opts.cwd), sessionId: 'explain' }
          } catch (err) {
            throw new CliError((err as Error).message, 2)
          }
        }
        // The engine records every gate it evaluates; explain only prints that trace (it never evaluates itself).
        const trace: GateTrace[] = []
        const { request, decision } = await engine.decide(call, undefined, trace)
        const ctx = engine.evalContext()
        const gates = explainGates(trace)
        if (opts.json) io.out(JSON.stringify({ mode: engine.mode(), svc_ports: ctx.svcPorts, request: summary(request), gates, decision: verdictOf(decision) }, null, 2))
        else io.out(render(engine.mode(), request, gates, decision, ctx.svcPorts, opts.all ?? false))
        if (opts.exitCode && decision.verdict === 'deny') throw new CliError(`denied${decision.ruleId ? ` by ${decision.ruleId}` : ''}`)
      } finally {
        await snapshot.close()
      }
    })
}

function parseInput(command: string | undefined, opts: Options): Record<string, unknown> {
  if (opts.input !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(opts.input)
    } catch (err) {
      throw new CliError(`--input is not valid JSON: ${(err as Error).message}`, 2)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError('--input must be a JSON object, e.g. \'{"file_path":"/etc/passwd"}\'', 2)
    return parsed as Record<string, unknown>
  }
  if (command === undefined) throw new CliError('give a command to explain, or --tool NAME --input JSON', 2)
  return { command }
}

function summary(request: EvalRequest) {
  return { tool: request.tool, cwd: request.cwd, shell: request.shell, paths: request.paths, urls: request.urls, mcp: request.mcp }
}

function verdictOf(d: Decision) {
  return {
    verdict: d.verdict,
    ledger_verdict: d.ledgerVerdict,
    rule_id: d.ruleId,
    reason: d.reason,
    ...(d.verdict === 'deny' && d.nudge ? { nudge: d.nudge } : {}),
    stage: d.stage,
    trace: d.trace,
  }
}

/** Human-readable report: analysis first, then every gate, then the verdict. */
export function render(mode: string, request: EvalRequest, gates: readonly GateLine[], decision: Decision, svcPorts?: readonly number[], all = true): string {
  const out: string[] = [`tool: ${request.tool}${request.cwd ? `   cwd: ${request.cwd}` : ''}   daemon mode: ${mode}${svcPorts ? `   $SVC_PORTS: ${svcPorts.join(',')}` : ''}`]
  const shell = request.shell
  if (shell) {
    out.push(`command: ${shell.raw}`)
    if (shell.error) out.push(`analysis error: ${shell.error}`)
    out.push(`simple commands (${shell.commands.length}):`)
    shell.commands.forEach((c, i) => {
      out.push(`  ${i + 1}. ${c.text}`)
      const facts = [
        `program=${c.program}`,
        c.via.length > 0 ? `via=${c.via.join(' → ')}` : '',
        c.paths?.length ? `paths=${c.paths.join(',')}` : '',
        c.writes?.length ? `writes=${c.writes.join(',')}` : '',
        c.urls?.length ? `urls=${c.urls.map((u) => `${u.scheme}://${u.host}${u.port ? `:${u.port}` : ''}`).join(',')}` : '',
      ]
      out.push(`     ${facts.filter(Boolean).join('  ')}`)
    })
    out.push(`signals: ${shell.signals.length > 0 ? shell.signals.join(', ') : '(none)'}`)
  }
  if (request.paths.length > 0) out.push(`paths: ${request.paths.join(', ')}`)
  if (request.urls.length > 0) out.push(`urls: ${request.urls.map((u) => `${u.scheme}://${u.host}${u.port ? `:${u.port}` : ''}`).join(', ')}`)
  const matched = gates.filter((g) => g.matched)
  const shown = all ? gates : matched
  out.push(
    `gates evaluated (${gates.length}, ${matched.length} matched)${all || gates.length === matched.length ? ':' : `; the ${gates.length - matched.length} that did not match are listed with --all${matched.length > 0 ? ':' : ''}`}`,
  )
  const width = Math.max(0, ...shown.map((g) => g.id.length))
  for (const g of shown) out.push(`  ${g.matched ? 'MATCH' : '  -  '} ${g.layer.padEnd(8)} ${g.id.padEnd(width)}  [${g.on_hit}${g.pack ? ` · ${g.pack}` : ''}]  ${g.why}`)
  const decided = gates.find((g) => g.matched && g.id === decision.ruleId)
  const pack = decided ? ` (${decided.pack ? `pack ${decided.pack}, ` : ''}severity ${decided.on_hit})` : ''
  out.push(`verdict: ${decision.verdict.toUpperCase()} (${decision.ledgerVerdict})${decision.ruleId ? ` rule ${decision.ruleId}${pack}` : ''}`)
  out.push(`reason: ${decision.reason}`)
  if (decision.verdict === 'deny' && decision.nudge) out.push(`nudge: ${decision.nudge}`)
  return out.join('\n')
}
