/**
 * `analysis:shell`: the preEvaluate plugin that turns a shell tool call's command into the simple
 * commands that would actually run (see analyze.ts), and adds the paths and URLs they touch to the
 * request. It replaces the raw-command placeholder; gates read `request.shell`.
 */
import { callerOf } from './caller-access.ts'
import { EngineError, ERR, extensionRegistry, lexicalPath, STAGE, type CallUrl, type CommandAnalysis, type EnginePlugin, type EvalRequest } from '../../core/index.ts'
import { AnalysisMemo } from './memo.ts'
import { loadBashParser, type BashParser } from './parser.ts'
import type { Budget } from './state.ts'
import { TerminalLines } from './terminal.ts'
import { loadCodeParsers, type CodeParsers } from './code-parsers.ts'
import { shellQuote } from './quote.ts'

export { analyzeCommand, type AnalyzeOptions } from './analyze.ts'
export { AnalysisMemo } from './memo.ts'
export { loadBashParser, type BashParser } from './parser.ts'
export { loadCodeParsers, precompileGrammars, type CodeParsers } from './code-parsers.ts'
export { DEFAULT_BUDGET, type Budget } from './state.ts'

const NAME = 'analysis:shell'

/**
 * Tools that run their input as shell text: the policy's `Bash` (every harness maps its shell tool onto
 * it) and the native names a /v1/gates/check caller may send. The built-in packs name the same list (a test
 * keeps them equal): for these tools the analysed commands are the whole story.
 */
export const SHELL_TOOLS: readonly string[] = ['Bash', 'shell', 'local_shell', 'exec_command', 'run_shell_command', 'Shell', 'Terminal', 'write_stdin']

/**
 * Tools that never run a command, in the policy's vocabulary and the harnesses' native names. What a call
 * is comes from its tool: a `command` field in their input is data (an unused `"command": "ls"` must not
 * make a Read a shell call). Tools in neither list (MCP tools above all) may run what they carry, so their
 * command text is analysed too; their path and URL fields are checked all the same.
 */
export const NON_SHELL_TOOLS: ReadonlySet<string> = new Set([
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'Grep',
  'Glob',
  'LS',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'Delete',
  'Agent',
  'Task',
  'read_file',
  'read_many_files',
  'write_file',
  'replace',
  'glob',
  'grep_search',
  'search_file_content',
  'list_directory',
  'web_fetch',
  'google_web_search',
  'write_todos',
  'StrReplace',
])

/** The command string of a shell tool call: `command` as a string, or an argv array (Codex `shell`). */
export function commandText(input: Readonly<Record<string, unknown>>): string | undefined {
  // The Responses API's `local_shell_call` carries it as `action.command`.
  const action = typeof input.action === 'object' && input.action !== null ? (input.action as Record<string, unknown>) : undefined
  const command = input.command ?? input.cmd ?? action?.command
  if (typeof command === 'string') return command
  if (typeof command === 'number' || typeof command === 'boolean') return String(command)
  // An argv with a stray non-string element is still that argv (it used to skip analysis and be allowed).
  if (Array.isArray(command) && command.length > 0) return command.map((c) => shellQuote(typeof c === 'string' ? c : (JSON.stringify(c) ?? String(c)))).join(' ')
  return undefined
}

/**
 * Text typed into a running terminal session (Codex unified exec `write_stdin {chars}`) is shell input as
 * much as a command is: `exec_command bash` followed by `write_stdin "rm -rf ~\n"` must be analysed too.
 * Returns the raw keystrokes (see terminal.ts for how they become lines).
 */
export function terminalInput(tool: string, input: Readonly<Record<string, unknown>>): string | undefined {
  if (!/stdin|terminal|send_keys|type_text/i.test(tool)) return undefined
  const text = input.chars ?? input.input ?? input.text ?? input.keys
  return typeof text === 'string' && text !== '' ? text : undefined
}

/** Which terminal keystrokes go to: the harness session and the tool's own terminal id. */
function terminalKey(sessionId: string, input: Readonly<Record<string, unknown>>): string {
  const id = input.session_id ?? input.terminal_id ?? input.terminal ?? input.process_id ?? ''
  return `${sessionId}\u0000${typeof id === 'string' || typeof id === 'number' ? id : JSON.stringify(id)}`
}

/** Input fields in which shell tools name the directory the command runs in (Gemini, Cursor, Codex). */
const WORKDIR_FIELDS = ['dir_path', 'directory', 'working_directory', 'workdir', 'cwd'] as const

/** Fields of shell tools that say how, not what, to run (Claude, Codex, Gemini, Cursor): an input of only these runs nothing. */
const SHELL_METADATA: ReadonlySet<string> = new Set([
  ...WORKDIR_FIELDS,
  'description',
  'timeout',
  'timeout_ms',
  'run_in_background',
  'dangerouslyDisableSandbox',
  'sandbox',
  'sandbox_permissions',
  'with_escalated_permissions',
  'justification',
  'yield_time_ms',
  'max_output_tokens',
  'shell',
  'login',
  'session_id',
  'is_background',
])

/** A shell call whose input holds something besides its metadata, but no command svc reads: it may run anything. */
function carriesOtherInput(input: Readonly<Record<string, unknown>>): boolean {
  return Object.entries(input).some(
    ([key, value]) => !SHELL_METADATA.has(key) && value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0),
  )
}

const NO_COMMAND_FOUND: CommandAnalysis = {
  raw: '',
  commands: [],
  signals: ['unanalysable'],
  error: 'a shell call whose input carries no command field svc reads (command, cmd, action.command)',
}

/**
 * Where the command runs: the tool's own working-directory field (resolved against the call's cwd) wins
 * over the call's cwd, since that is where the harness starts it (`rm -rf *` with `dir_path: /`).
 */
export function shellCwd(input: Readonly<Record<string, unknown>>, cwd: string | undefined, home: string): string | undefined {
  for (const field of WORKDIR_FIELDS) {
    const value = input[field]
    if (typeof value === 'string' && value.trim() !== '') return lexicalPath(value, cwd, home)
  }
  return cwd
}

/**
 * Builds the plugin; `budget` overrides the default analysis limits; `memo` remembers repeated analyses
 * (memo.ts; by default each engine has its own). One plugin object serves every engine of a process: what it
 * remembers (terminal line buffers, analyses) belongs to the engine it was applied to, never to the process.
 */
export function createShellAnalysisPlugin(budget: Partial<Budget> = {}, sharedMemo?: AnalysisMemo): EnginePlugin {
  return {
    name: NAME,
    apply({ hooks, env, registry }) {
      // Filled by the harness plugins (each definition's programs and config variables): read when a call comes.
      const lists = extensionRegistry<readonly string[]>(registry, 'policy-list')
      // Set by `svc daemon --user` (cli/daemon/run-as.ts): the daemon is another account's process.
      const daemonAccount = env.SVC_DAEMON_ACCOUNT || undefined
      // Its reads then carry the developer's rights, not its own (caller-access.ts).
      const caller = callerOf(env)
      let parser: BashParser | undefined
      let codeParsers: CodeParsers | undefined
      const terminals = new TerminalLines()
      const memo = sharedMemo ?? new AnalysisMemo()
      hooks.initialize.tapPromise(NAME, async () => {
        parser = await loadBashParser()
        codeParsers = await loadCodeParsers()
      })
      hooks.preEvaluate.tap({ name: NAME, stage: STAGE.DEFAULT }, (request, ctx): EvalRequest => {
        if (NON_SHELL_TOOLS.has(request.tool) || request.shell) return request
        const command = commandText(request.input)
        const keys = command === undefined ? terminalInput(request.tool, request.input) : undefined
        const typed = keys === undefined ? undefined : terminals.type(terminalKey(request.sessionId, request.input), keys)
        const raw = command ?? typed?.lines.join('\n')
        if (raw === undefined) return SHELL_TOOLS.includes(request.tool) && carriesOtherInput(request.input) ? { ...request, shell: NO_COMMAND_FOUND } : request
        if (!parser) throw new EngineError(ERR.PLUGIN_FAILED, 'the bash parser is not loaded (initialize hook did not run)', { plugin: NAME })
        // A repeated command is answered from memory while every disk read it made still holds (memo.ts).
        const analysed = memo.analyze(raw, {
          parser,
          home: ctx.home,
          cwd: shellCwd(request.input, request.cwd, ctx.home),
          budget,
          ...(ctx.svcHome ? { svcHome: ctx.svcHome } : {}),
          ...(codeParsers ? { codeParsers } : {}),
          ...(daemonAccount ? { daemonAccount } : {}),
          ...(caller ? { caller } : {}),
          harnessPrograms: lists.get('$SVC_HARNESS_PROGRAMS') ?? [],
          harnessVariables: lists.get('$SVC_HARNESS_VARIABLES') ?? [],
        })
        const shell = typed?.unknownKeys ? { ...analysed, signals: [...new Set([...analysed.signals, 'unknown_keys'])].sort() } : analysed
        const paths = new Set(request.paths)
        const urls: CallUrl[] = [...request.urls]
        for (const command of shell.commands) {
          for (const p of command.paths ?? []) paths.add(p)
          for (const u of command.urls ?? []) if (!urls.some((o) => o.raw === u.raw)) urls.push(u)
        }
        return { ...request, shell, paths: [...paths], urls }
      })
    },
  }
}

export default createShellAnalysisPlugin()
