/**
 * Environment variables whose value some program runs as a shell command: pagers (`GIT_PAGER`, `PAGER`,
 * `MANPAGER`, `LESSOPEN`), editors (`EDITOR`, `GIT_EDITOR`), remote shells (`GIT_SSH_COMMAND`, `RSYNC_RSH`),
 * askpass helpers and `PROMPT_COMMAND`. Which program reads which variable is a long and growing list, so the
 * value is analysed where it is assigned, whatever runs next: `PAGER='rm -rf ~' man ls` is `rm -rf ~`. A value
 * only run time knows (`GIT_PAGER=$(cat f) git log`, `read -r EDITOR < f`) is code built at run time: refused.
 * `BASH_ENV` and `ENV` name a file a shell runs; only their run-time values are judged here (dispatch reads
 * the file a known value names when a shell starts).
 */
import { codeVariable } from './code-variables.ts'
import { execString, preloadedFiles } from './execution.ts'
import { noteGitEnv } from './git-aliases.ts'
import { shellQuote } from './quote.ts'
import { substitutionsIn } from './shell-text.ts'
import { noteConfigVariable } from './self-protection.ts'
import type { Invocation } from './invocation.ts'
import { NO_REDIRECTS, type AnalysisState, type Scope } from './state.ts'

/** Variables whose value is a command line some program runs through a shell (or splits and runs). */
export const COMMAND_VARIABLES: ReadonlySet<string> = new Set([
  'PAGER',
  'GIT_PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'GH_PAGER',
  'GLAB_PAGER',
  'AWS_PAGER',
  'PSQL_PAGER',
  'BAT_PAGER',
  'DELTA_PAGER',
  'LESSOPEN',
  'LESSCLOSE',
  'EDITOR',
  'VISUAL',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'SUDO_EDITOR',
  'KUBE_EDITOR',
  'FCEDIT',
  'SVN_EDITOR',
  'HGEDITOR',
  'BROWSER',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'RSYNC_RSH',
  'CVS_RSH',
  'GIT_PROXY_COMMAND',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'PROMPT_COMMAND',
  // npm runs every package script through this program.
  'npm_config_script_shell',
  'NPM_CONFIG_SCRIPT_SHELL',
])

/**
 * Variables of interpreter options that load code before the program: `NODE_OPTIONS='--require ./x.js'`
 * runs x.js in every node process, so it is judged as `node --require ./x.js` would be.
 */
const INTERPRETER_OPTION_VARIABLES: Readonly<Record<string, string>> = { NODE_OPTIONS: 'node' }

/** Prompts: bash expands `$(…)` in them each time it prints one (PS4 for every line `bash -x` traces). */
const PROMPT_VARIABLES: ReadonlySet<string> = new Set(['PS0', 'PS1', 'PS2', 'PS4'])

/** Variables naming a file a shell runs before its command. */
const SCRIPT_VARIABLES: ReadonlySet<string> = new Set(['BASH_ENV', 'ENV'])

/** The value as known at the assignment: its text, or undefined when only run time knows it. */
export interface AssignedValue {
  readonly text: string | undefined
  /** Programs whose output went into it (a downloader, a decoder). */
  readonly programs: readonly string[]
  /** The value is a number whatever it is (an arithmetic expansion). */
  readonly numeric?: boolean
}

/** Programs whose output is a number (`n=$(wc -l < f)`): arithmetic on it runs nothing. */
const NUMERIC_PRODUCERS: ReadonlySet<string> = new Set(['wc', 'nproc', 'seq', 'date', 'expr', 'id', 'stat', 'du', 'getconf', 'bc', 'tput', 'jot'])

/**
 * Judges an assignment to `name` in `scope` (plain, exported, prefix, `env NAME=`, `read`, `printf -v`, a
 * `for` variable), and notes one that moves git's config (git-aliases.ts).
 */
export function assignedVariable(st: AnalysisState, scope: Scope, name: string, value: AssignedValue): void {
  noteGitEnv(scope.vars, name)
  noteConfigVariable(scope, name)
  const numeric = value.numeric === true || (value.programs.length > 0 && value.programs.every((p) => NUMERIC_PRODUCERS.has(p)))
  if (value.text === undefined && !numeric) st.unknownTextVariables.add(name)
  else st.unknownTextVariables.delete(name)
  const options = codeVariable(st, scope, name, value.text, value.programs)
  if (options !== undefined) st.analyzeString(options, scope, [...scope.via, `${name}=`])
  const interpreter = INTERPRETER_OPTION_VARIABLES[name]
  if (interpreter !== undefined) return interpreterOptions(st, scope, name, interpreter, value)
  const command = COMMAND_VARIABLES.has(name)
  if (value.text === undefined) {
    // What a program will run, or a shell will read or print, that only run time knows.
    if (command || SCRIPT_VARIABLES.has(name) || PROMPT_VARIABLES.has(name)) st.signals.add('dynamic_exec')
    return
  }
  if (command) {
    if (value.text.trim() === '') return
    // less runs LESSOPEN's `|cmd %s`, `||cmd %s` or `cmd %s` (a leading `-` only changes when it runs).
    const text = name === 'LESSOPEN' ? value.text.replace(/^-?\|{0,2}/, '') : value.text
    const inv: Invocation = { argv: [], info: [], scope, via: scope.via, redirects: NO_REDIRECTS }
    return execString(st, inv, text, [{ dynamic: false, programs: value.programs, procsub: false }], `${name}=`)
  }
  // A value holding a command substitution runs it wherever bash expands the value again: arithmetic (`$((x))`,
  // `[[ $x -eq 1 ]]`, `a[x]`), `${x@P}`, a prompt, eval. Analysed here, once, whatever expands it later.
  for (const inner of substitutionsIn(value.text)) st.analyzeString(inner, scope, [...scope.via, `${name}= (expanded again)`])
}

/**
 * Preloaded files in an interpreter-options variable, analysed as the interpreter given them on its command line.
 * A value built by a command substitution may preload anything: refused. One that only extends the inherited
 * value (`NODE_OPTIONS="$NODE_OPTIONS --max-old-space-size=4096"`) is not judged (its text is not known here).
 */
function interpreterOptions(st: AnalysisState, scope: Scope, name: string, interpreter: string, value: AssignedValue): void {
  if (value.text === undefined) {
    if (value.programs.length > 0) st.signals.add('dynamic_exec')
    return
  }
  const argv = [interpreter, ...value.text.split(/\s+/).filter((w) => w !== '')]
  for (const file of preloadedFiles(interpreter, argv)) st.analyzeString(`${interpreter} --require ${shellQuote(file)}`, scope, [...scope.via, `${name}=`])
}

/** `unset NAME`: gone for what follows, and a harness that needs it to find its config is noted. */
export function unsetVariable(scope: Scope, name: string): void {
  scope.vars.delete(name)
  noteConfigVariable(scope, name)
}
