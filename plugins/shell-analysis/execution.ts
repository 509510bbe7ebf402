/**
 * Code that gets executed: strings run by shells (`bash -c`, `eval`, `su -c`), scripts read from stdin,
 * process substitutions, and inline interpreter code. Each is analysed recursively, and what produced the
 * executed text (a downloader, a decoder) becomes a signal.
 */
import { runsDownloaded } from './downloads.ts'
import { scriptToRun, writtenText } from './files.ts'
import { perlModuleCode, spawnPositions } from './spawn-positions.ts'
import { decodesThenRuns, pathLiteralsInCode, runsComputedText, shellStringsInCode } from './inline-code.ts'
import { PLAIN, type FieldInfo, type Invocation } from './invocation.ts'
import { CODE_FIRST_OPERAND, DECODERS, DOWNLOADERS, INTERPRETERS, programName } from './programs.ts'
import { analyseCode } from './code-analysis.ts'
import { languageOf } from './code-parsers.ts'
import { lexicalPath } from './paths.ts'
import { NO_REDIRECTS } from './state.ts'
import { parseCallUrl } from './urls.ts'
import { recordCommand, type RecordExtras } from './record.ts'
import type { AnalysisState, NestedRun } from './state.ts'

/** Index of the string a shell runs with `-c` (or -1). */
export function shellCommandIndex(argv: readonly string[]): number {
  let commandMode = false
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (/^-[a-zA-Z]+$/.test(arg) || /^-command$/i.test(arg)) {
      if (arg.includes('c') || /^-command$/i.test(arg)) commandMode = true
      continue
    }
    if (/^[-+]-?[oO]$/.test(arg)) {
      i++
      continue
    }
    if (arg.startsWith('-') || arg.startsWith('+')) continue
    return commandMode ? i : -1
  }
  return -1
}

/** `bash -c STRING`, `bash script`, or a shell reading its script from stdin. */
export function shell(st: AnalysisState, inv: Invocation, program: string): void {
  const { argv } = inv
  let commandMode = false
  let stdinMode = false
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--' || arg === '-') {
      if (!commandMode) return stdinOrScript(st, inv, program, i + 1, stdinMode)
      continue
    }
    if (/^-(command|c)$/i.test(arg) && (program === 'pwsh' || program === 'powershell')) commandMode = true
    else if (/^-(e|enc|ec|encodedcommand)$/i.test(arg) && (program === 'pwsh' || program === 'powershell')) {
      st.signals.add('decode_exec')
      return
    } else if (/^[-+]-?[oO]$/.test(arg) || arg === '--rcfile' || arg === '--init-file') {
      i++
      continue
    } else if (/^-[a-zA-Z]+$/.test(arg)) {
      if (arg.includes('c')) commandMode = true
      if (arg.includes('s')) stdinMode = true
      continue
    } else if (arg.startsWith('-') || arg.startsWith('+')) continue
    if (commandMode) {
      // `bash -c STRING NAME ARGS...`: NAME is $0 and ARGS are $1...
      execString(st, inv, arg, [inv.info[i] ?? PLAIN], `${program} -c`, { positional: argv.slice(i + 1) })
      return
    }
    return stdinOrScript(st, inv, program, i, stdinMode)
  }
  if (!commandMode) stdinExec(st, inv, program, true)
}

/** A shell given a script operand (checked for substitutions and downloads) or reading stdin. */
/** Paths through which a program reads its own standard input. */
export const STDIN_PATHS: ReadonlySet<string> = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'])

export function stdinOrScript(st: AnalysisState, inv: Invocation, program: string, scriptIndex: number, stdinMode: boolean): void {
  const info = inv.info[scriptIndex]
  if (!stdinMode && scriptIndex < inv.argv.length && !STDIN_PATHS.has(inv.argv[scriptIndex]!)) {
    if (info?.procsub) execSubstitution(st, info.programs)
    runsDownloaded(st, inv.scope, inv.argv[scriptIndex])
    runWrittenFile(st, inv, inv.argv[scriptIndex], program, true)
    // `sh ./svc.sh mode monitor` runs the script like `./svc.sh mode monitor`: gates on its name see it.
    const script = inv.argv[scriptIndex]!
    if (!info?.procsub) recordCommand(st, inv.scope, programName(script), inv.argv.slice(scriptIndex), [...inv.via, program], inv.redirects)
    return
  }
  stdinExec(st, inv, program, true)
}

/**
 * A script the same command wrote earlier (`echo CODE > x.sh; bash x.sh`, `source <(echo CODE)`): its
 * content is analysed as the shell code or interpreter code it is. `sameShell` for `source`/`.`.
 */
export function runWrittenFile(st: AnalysisState, inv: Invocation, raw: string | undefined, program: string, isShell: boolean, sameShell = false): void {
  const script = scriptToRun(st, inv.scope, raw, isShell ? 'shell' : 'interpreter', inv.argv)
  if (script === 'unreadable') st.signals.add('unanalysable_script')
  if (typeof script !== 'object') return
  const label = `${program} ${raw}`
  // A script already on disk (written by an earlier tool call) is analysed too, best effort.
  if (isShell && script.onDisk) st.analyzeFile(script.text, inv.scope, [...inv.via, label])
  else if (isShell) st.analyzeString(script.text, inv.scope, [...inv.via, label], sameShell ? { sameShell: true } : {})
  else inlineCode(st, inv, script.text, label)
}

/** A string that is executed as shell code (`-c`, eval, su -c, watch). */
export function execString(st: AnalysisState, inv: Invocation, text: string, infos: readonly FieldInfo[], label: string, how: NestedRun = {}): void {
  if (infos.some((i) => i.dynamic && !shellInit(i.programs))) st.signals.add('dynamic_exec')
  for (const info of infos) classifyExecuted(st, info.programs)
  st.signals.add('nested_shell')
  st.analyzeString(text, inv.scope, [...inv.via, label], how)
}

/** A shell or interpreter that reads its program from stdin. */
export function stdinExec(st: AnalysisState, inv: Invocation, program: string, isShell: boolean): void {
  const stdin = inv.stdin
  if (!stdin) return
  classifyExecuted(st, stdin.programs)
  const label = stdin.kind === 'pipe' ? `| ${program}` : stdin.kind === 'herestring' ? `${program} <<<` : stdin.kind === 'heredoc' ? `${program} <<` : `${program} <`
  if (stdin.text !== undefined) {
    if (isShell) st.analyzeString(stdin.text, inv.scope, [...inv.via, label])
    else inlineCode(st, inv, stdin.text, label)
    return
  }
  if (stdin.kind === 'pipe') st.signals.add(isShell ? 'pipe_to_shell' : 'pipe_to_interpreter')
  // `bash < x.sh` runs x.sh as `bash x.sh` does: a file an earlier call wrote is read from disk.
  else if (stdin.kind === 'file' && stdin.path !== undefined) runWrittenFile(st, inv, stdin.path, program, isShell)
}

/** Output of a process substitution is executed (`bash <(curl ...)`, `source <(...)`). */
export function execSubstitution(st: AnalysisState, programs: readonly string[]): void {
  if (!shellInit(programs)) st.signals.add('exec_substitution')
  classifyExecuted(st, programs)
}

/**
 * Tools whose output is shell setup code meant to be evaluated (`eval "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`,
 * `source <(kubectl completion bash)`): running it is what they are for. The commands themselves are analysed.
 */
const SHELL_INIT: ReadonlySet<string> = new Set([
  'ssh-agent',
  'atuin',
  'thefuck',
  'pyenv',
  'rbenv',
  'nodenv',
  'goenv',
  'jenv',
  'plenv',
  'direnv',
  'starship',
  'zoxide',
  'fnm',
  'mise',
  'rtx',
  'brew',
  'conda',
  'mamba',
  'micromamba',
  'kubectl',
  'helm',
  'opam',
  'dircolors',
  'keychain',
  'gpg-agent',
  'luarocks',
  'rustup',
  'fzf',
  'oh-my-posh',
  'volta',
  'pipx',
  'register-python-argcomplete',
  'minikube',
  'kind',
  'k3d',
  'podman-machine',
  'docker-machine',
  'fasd',
  'hub',
  'gh',
  'glab',
  'just',
  'deno',
  'bun',
  'pnpm',
  'uv',
  'poetry',
  'pdm',
  'rye',
  'hatch',
  'nix',
  'asdf',
  'chezmoi',
  'terraform',
  'aws',
  'gcloud',
  'az',
  'doctl',
  'flyctl',
  'stripe',
  'op',
  'vault',
  'consul',
  'nomad',
])

function shellInit(programs: readonly string[]): boolean {
  return programs.length > 0 && programs.every((p) => SHELL_INIT.has(p))
}

/** Flags download-then-execute and decode-then-execute from the programs that produced executed text. */
export function classifyExecuted(st: AnalysisState, programs: readonly string[]): void {
  if (programs.some((p) => DOWNLOADERS.has(p))) st.signals.add('download_exec')
  if (programs.some((p) => DECODERS.has(p))) st.signals.add('decode_exec')
}

/** An interpreter: inline code (`-c`, `-e`, awk programs), a script operand, or a program on stdin. */
export function interpret(st: AnalysisState, inv: Invocation, program: string, key: string, record: (extras?: RecordExtras) => void): void {
  const options = INTERPRETERS.get(key) ?? []
  const { argv } = inv
  let codeIndex = -1
  let scriptIndex = -1
  const valued = VALUE_OPTIONS[key] ?? []
  for (const preload of preloadedFiles(key, argv)) runWrittenFile(st, inv, preload, program, false)
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    // An option with its value in the next argument (`python3 -W ignore -c`, `node -r fs -e`, `php -d k=v -r`).
    if (valued.includes(arg)) {
      i++
      continue
    }
    const eq = arg.indexOf('=')
    if (arg.startsWith('--') && eq > 0 && options.includes(arg.slice(0, eq))) {
      codeIndex = i
      break
    }
    if (options.includes(arg) || (/^-[a-zA-Z]+$/.test(arg) && options.some((o) => /^-[a-zA-Z]$/.test(o) && arg.endsWith(o.slice(1))))) {
      codeIndex = i + 1
      break
    }
    if (arg === '-m' || arg === '-f' || arg === '--file') break
    if (!arg.startsWith('-')) {
      if (CODE_FIRST_OPERAND.has(key)) codeIndex = i
      else scriptIndex = i
      break
    }
  }
  // Whatever the options before it, every inline-code option's value is code (an unknown option with a
  // separate value must not turn the code into a "script name").
  if (codeIndex === -1) codeIndex = laterInlineCode(argv, options)
  if (codeIndex > 0 && codeIndex < argv.length) {
    const codeArg = argv[codeIndex]!
    const code = codeArg.startsWith('--') && codeArg.includes('=') ? codeArg.slice(codeArg.indexOf('=') + 1) : codeArg
    const info = inv.info[codeIndex] ?? PLAIN
    if (info.dynamic) st.signals.add('dynamic_exec')
    classifyExecuted(st, info.programs)
    record({ paths: pathLiteralsInCode(code), exclude: [codeIndex] })
    if (!CODE_FIRST_OPERAND.has(key) || /\bsystem\b|\|/.test(code)) inlineCode(st, inv, code, `${program} -c`)
    // Every further code option is code too (`perl -e A -e B`, `php -B A -R B -E C`), and Perl's `-M'X;code'`.
    for (const [i, more] of argv.entries())
      if (i > codeIndex && options.includes(argv[i - 1]!) && !CODE_FIRST_OPERAND.has(key)) inlineCode(st, inv, more, `${program} ${argv[i - 1]}`)
    for (const code of perlModuleCode(key, argv)) inlineCode(st, inv, code, `${program} -M`)
    return
  }
  record()
  if (scriptIndex > 0 && (key === 'deno' || key === 'bun') && argv[scriptIndex] === 'run') scriptIndex = argv.findIndex((a, i) => i > scriptIndex && !a.startsWith('-'))
  if (scriptIndex > 0) svcEntry(st, inv, program, scriptIndex)
  if (scriptIndex > 0) {
    const info = inv.info[scriptIndex] ?? PLAIN
    if (info.procsub) execSubstitution(st, info.programs)
    runsDownloaded(st, inv.scope, inv.argv[scriptIndex])
    // A script the command wrote earlier is analysed as if given inline (`python3 -c CODE`).
    const script = argv[scriptIndex]!
    const text = STDIN_PATHS.has(script) ? inv.stdin?.text : writtenText(st, inv.scope, script, inv.argv)
    if (text !== undefined) interpretInline(st, inv, program, key, text, info, argv.slice(scriptIndex + 1), `${program} ${script}`)
    // On disk (an earlier tool call wrote it): the commands it hands to a shell, and decode-and-run.
    else if (!STDIN_PATHS.has(script) && !CODE_FIRST_OPERAND.has(key)) runWrittenFile(st, inv, script, program, false)
    if (STDIN_PATHS.has(script)) stdinExec(st, inv, program, false)
    return
  }
  // A program on stdin (`python3 <<EOF`) is analysed as if given inline, too.
  if (inv.stdin?.text !== undefined) interpretInline(st, inv, program, key, inv.stdin.text, PLAIN, [], `${program} <`)
  stdinExec(st, inv, program, false)
}

/** svc's own CLI entry points: `cli/main.ts` (any extension), `svc.sh`, `svc`. */
const SVC_ENTRY = /(^|\/)cli\/(main|svc)\.(ts|mts|js|mjs|cjs|sh)$|(^|\/)svc(\.sh|\.ts|\.js|\.mjs)?$/

/**
 * `node cli/main.ts mode monitor`, `cd cli && node main.ts ...`, `npx tsx cli/main.ts`, `bun cli/main.ts`:
 * svc's CLI run through an interpreter is svc, so the gates on `svc` subcommands see it under that name.
 */
function svcEntry(st: AnalysisState, inv: Invocation, program: string, scriptIndex: number): void {
  const script = inv.argv[scriptIndex]!
  const path = lexicalPath(script, { home: st.options.home, cwd: inv.scope.cwd }) ?? script
  if (!SVC_ENTRY.test(path)) return
  recordCommand(st, inv.scope, 'svc', ['svc', ...inv.argv.slice(scriptIndex + 1)], [...inv.via, `${program} ${script}`], inv.redirects)
}

/** Options that take a separate value, per interpreter (the value is neither code nor a script). */
const VALUE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  python: ['-W', '-X', '-Q'],
  python2: ['-W', '-X', '-Q'],
  python3: ['-W', '-X'],
  pypy: ['-W', '-X'],
  pypy3: ['-W', '-X'],
  node: ['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--env-file', '--title', '--input-type', '--inspect-port', '--disable-warning'],
  nodejs: ['-r', '--require', '--import', '--loader', '-C', '--conditions'],
  bun: ['-r', '--preload', '--cwd', '--env-file', '--config'],
  perl: ['-I', '-M', '-m', '-x', '-C', '-l', '-0'],
  ruby: ['-r', '-I', '-C', '-E', '-x', '-K', '-F'],
  php: ['-d', '-c', '-z', '-n'],
  lua: ['-l'],
  luajit: ['-l', '-j'],
  Rscript: ['--default-packages'],
  tsx: ['-r', '--require', '--import', '--tsconfig'],
}

/** Options whose value is code the interpreter runs before the program (`node -r ./x.js`, `php -d auto_prepend_file=x`). */
const PRELOAD_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  node: ['-r', '--require', '--import', '--loader', '--experimental-loader'],
  nodejs: ['-r', '--require', '--import', '--loader', '--experimental-loader'],
  bun: ['-r', '--preload'],
  tsx: ['-r', '--require', '--import'],
  ruby: ['-r'],
  php: ['-d'],
}

/** The files an interpreter's preload options name (a package name among them reads as a missing file: nothing). */
export function preloadedFiles(key: string, argv: readonly string[]): string[] {
  const options = PRELOAD_OPTIONS[key] ?? []
  const out: string[] = []
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    // The first operand that is no option's value is the script: what follows is its own.
    if (arg === '--' || (!arg.startsWith('-') && !options.includes(argv[i - 1] ?? '') && !(VALUE_OPTIONS[key] ?? []).includes(argv[i - 1] ?? ''))) break
    const inline = options.find((o) => o.startsWith('--') && arg.startsWith(`${o}=`))
    const value = inline !== undefined ? arg.slice(inline.length + 1) : options.includes(arg) ? argv[i + 1] : undefined
    // php: only `-d auto_prepend_file=FILE` / `auto_append_file=FILE` load code.
    const file = key === 'php' ? /^auto_(?:prepend|append)_file=(.+)$/.exec(value ?? '')?.[1] : value
    if (file !== undefined && file !== '') out.push(file)
  }
  return out
}

/** The value index of the first inline-code option anywhere before `--` (after an operand too), or -1. */
function laterInlineCode(argv: readonly string[], options: readonly string[]): number {
  for (let i = 1; i < argv.length - 1; i++) {
    if (argv[i] === '--') return -1
    if (options.includes(argv[i]!) && /^-/.test(argv[i]!)) return i + 1
  }
  return -1
}

/** Analyses `text` as the interpreter's inline code (`python3 -c TEXT`), so code-level gates see it. */
function interpretInline(st: AnalysisState, inv: Invocation, program: string, key: string, text: string, info: FieldInfo, rest: readonly string[], label: string): void {
  const inlineOption = (INTERPRETERS.get(key) ?? [])[0]
  if (inlineOption === undefined || CODE_FIRST_OPERAND.has(key)) return
  const inline: Invocation = {
    ...inv,
    argv: [inv.argv[0]!, inlineOption, text, ...rest],
    info: [inv.info[0] ?? PLAIN, PLAIN, info, ...rest.map(() => PLAIN)],
    via: [...inv.via, label],
    stdin: undefined,
  }
  interpret(st, inline, program, key, (extras = {}) => void recordCommand(st, inline.scope, program, inline.argv, inline.via, inline.redirects, extras))
}

/** How deep `via` may grow through code that evaluates code (`exec("exec('...')")`) before svc stops following. */
const MAX_EVAL_VIA = 16

/** Inline interpreter code: flagged, and the shell strings it hands to system/exec analysed. */
export function inlineCode(st: AnalysisState, inv: Invocation, code: string, label: string, program = programName(inv.argv[0] ?? '')): void {
  st.signals.add('inline_code')
  if (decodesThenRuns(code)) st.signals.add('decode_exec')
  const strings = new Set(shellStringsInCode(code))
  const language = languageOf(program)
  const parsers = st.options.codeParsers
  const via = [...inv.via, label]
  // Without a grammar: a run or eval of text that is not a literal is text svc cannot know.
  if (language === undefined && runsComputedText(code)) st.signals.add('unknown_code')
  const spawns = language === undefined ? spawnPositions(program, code) : undefined
  if (spawns?.unknown) st.signals.add('unknown_code')
  for (const c of spawns?.commands ?? []) strings.add(c)
  if (language !== undefined && parsers !== undefined) {
    const found = analyseCode(parsers, language, code, st.budget.maxParseSteps)
    // Code the grammar cannot read within the budget is code svc cannot know.
    if (found === undefined || found.unknown) st.signals.add('unknown_code')
    for (const c of found?.commands ?? []) strings.add(c)
    // Evaluated code is code of the same program; each level adds to `via`, which bounds the depth.
    for (const c of found?.evals ?? []) {
      if (via.length < MAX_EVAL_VIA) inlineCode(st, inv, c, `${label} eval`, program)
      else st.signals.add('unknown_code')
    }
    for (const target of found?.deletes ?? []) recordCommand(st, inv.scope, 'rm', ['rm', '-rf', target], via, NO_REDIRECTS)
    const urls = (found?.urls ?? []).flatMap((u) => parseCallUrl(u) ?? [])
    if (found && (found.paths.length > 0 || urls.length > 0)) recordCommand(st, inv.scope, program, [program], via, NO_REDIRECTS, { paths: found.paths, urls })
  }
  for (const text of strings) st.analyzeString(text, inv.scope, via)
}
