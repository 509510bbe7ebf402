/**
 * Argv-level analysis of one simple command: unwraps wrappers (`sudo`, `env`, `timeout`, `xargs`...),
 * follows strings that get executed (`bash -c`, `eval`, `su -c`, `find -exec`, inline interpreter code,
 * stdin of a shell) and records the command that actually runs. Returns its static output when known.
 */
import type { CallUrl } from '../../core/types.ts'
import { addDownload, downloadTargets, runsDownloaded, trackDownloads } from './downloads.ts'
import { classifyExecuted, execString, execSubstitution, inlineCode, interpret, runWrittenFile, shell, shellCommandIndex, STDIN_PATHS, stdinExec } from './execution.ts'
import { watchEnvSecrets } from './env-secrets.ts'
import { watchSelfProtection } from './self-protection.ts'
import { flagUnknowns } from './unknowns.ts'
import { pathOutput } from './path-output.ts'
import { makeRecipes } from './makefile.ts'
import { toolCode } from './tool-code.ts'
import { goGenerateCommands } from './go-generate.ts'
import { conftestFiles } from './conftest.ts'
import { setupScripts } from './setup-py.ts'
import { gitRun } from './git-run.ts'
import { changesShellState } from './builtins.ts'
import { instructionsOf, rememberCopy, scriptToRun, writtenText } from './files.ts'
import { PLAIN, type Invocation } from './invocation.ts'
import { unwrap } from './unwrap.ts'
import { NESTED_COMMANDS } from './nested-commands.ts'
import { readsCodeFromInput } from './spawn-positions.ts'
import { packageScripts } from './package-scripts.ts'
import { recordQueries } from './queries.ts'
import { operandProgram, runnerOf, runnerString } from './runners.ts'
import { forgetPatched, patchedByCommand } from './patches.ts'
import { expandProgramWord, lexicalPath } from './paths.ts'
import { DOWNLOADERS, SHELLS, WRAPPERS, interpreterKey, programName } from './programs.ts'
import { recordCommand, type RecordExtras } from './record.ts'
import { plantedOnPath, rememberProgramCopy, systemBinaryBehind } from './program-path.ts'
import type { AnalysisState } from './state.ts'
import { sshLocalCommands } from './ssh-commands.ts'
import { staticOutput } from './static-output.ts'
import { findUrls, parseCallUrl } from './urls.ts'

export type { FieldInfo, Invocation } from './invocation.ts'

const MAX_FIND_ROOTS = 4

/** Analyses one invocation; returns what it prints when that can be computed. */
export function dispatch(st: AnalysisState, invocation: Invocation): string | undefined {
  const inv = withExpandedProgram(st, invocation)
  const argv0 = inv.argv[0]
  if (argv0 === undefined) return undefined
  // The program the word really runs: a file planted on a PATH the command set, a link or copy of a system binary.
  const planted = plantedOnPath(st, inv.scope, argv0)
  const runs = planted ?? argv0
  const behind = runs.includes('/') ? systemBinaryBehind(st, inv.scope, runs) : undefined
  if ((behind ?? planted) !== undefined) return dispatch(st, { ...inv, argv: [(behind ?? planted)!, ...inv.argv.slice(1)], via: [...inv.via, argv0] })
  const program = programName(argv0)
  const first = inv.info[0] ?? PLAIN
  if (first.dynamic) {
    st.signals.add('dynamic_program')
    // A program only run time names, fed a download or decoded text (`curl … | $0`), may well be a shell: judged as one.
    classifyExecuted(st, inv.stdin?.programs ?? [])
  }
  classifyExecuted(st, first.programs)
  watchEnvSecrets(st, inv, program)
  watchSelfProtection(st, inv, program)

  const literal = new Set(inv.argv.filter((a, i) => /[*?[]/.test(a) && inv.info[i]?.glob === false))
  // `find ~/.ssh | while read f; do cat "$f"; done`: an argument known only at run time, read from a listing, names a path under it.
  const fromListing = inv.stdin?.listed !== undefined && inv.info.slice(1).some((i) => i.dynamic) ? inv.stdin.listed : []
  const inputPaths = [...(inv.inputPaths ?? []), ...fromListing]
  const record = (extras: RecordExtras = {}): void => {
    flagUnknowns(st, inv, program)
    recordCommand(st, inv.scope, program, inv.argv, inv.via, inv.redirects, {
      literal,
      ...extras,
      ...(inputPaths.length > 0 ? { paths: [...(extras.paths ?? []), ...inputPaths] } : {}),
    })
  }

  // `su`/`runuser ... -c STRING` run a string; `runuser -u USER -- CMD...` is a plain wrapper (below).
  const command = SU_LIKE.has(program) ? shellStringOption(inv.argv) : undefined
  if (command !== undefined) {
    record({ exclude: [command.index] })
    execString(st, inv, command.text, [inv.info[command.index] ?? PLAIN], `${program} -c`)
    return undefined
  }
  if (SU_LIKE.has(program) && !WRAPPERS.has(program)) {
    record()
    return undefined
  }
  const wrapper = WRAPPERS.get(program)
  // A wrapper's own options may run a command too (`strace -o '|CMD'`).
  const optionCommand = wrapper && Object.hasOwn(NESTED_COMMANDS, program) ? NESTED_COMMANDS[program]!(inv.argv) : undefined
  if (optionCommand?.kind === 'string')
    execString(
      st,
      inv,
      optionCommand.text,
      optionCommand.exclude.map((i) => inv.info[i] ?? PLAIN),
      `${program} ${optionCommand.label}`,
    )
  if (wrapper) return unwrap(st, inv, program)
  if (program === 'trap' && inv.argv[1] !== undefined && inv.argv.length > 2) {
    record({ exclude: [1] })
    execString(st, inv, inv.argv[1], [inv.info[1] ?? PLAIN], 'trap')
    return undefined
  }
  if (changesShellState(st, inv, program)) {
    record()
    return undefined
  }
  if (SHELLS.has(program)) {
    record({ exclude: [shellCommandIndex(inv.argv)] })
    shellStartup(st, inv, program)
    shell(st, inv, program)
    return undefined
  }
  if (program === 'at' || program === 'batch') {
    // at/batch run their job later with sh: the job comes from `-f FILE` or standard input.
    record()
    const f = inv.argv.indexOf('-f')
    if (f !== -1) runWrittenFile(st, inv, inv.argv[f + 1], program, true)
    else if (!inv.argv.some((a) => /^-[lrdcqV]$/.test(a))) stdinExec(st, inv, program, true)
    return undefined
  }
  if (program === 'eval') {
    record({ exclude: inv.argv.map((_, i) => i) })
    execString(st, inv, inv.argv.slice(1).join(' '), inv.info.slice(1), 'eval', { sameShell: true })
    return undefined
  }
  if (program === 'source' || program === '.') {
    record()
    const info = inv.info[1] ?? PLAIN
    if (info.procsub) execSubstitution(st, info.programs)
    runsDownloaded(st, inv.scope, inv.argv[1])
    runWrittenFile(st, inv, inv.argv[1], program, true, true)
    if (STDIN_PATHS.has(inv.argv[1] ?? '')) stdinExec(st, inv, program, true)
    return undefined
  }
  const interpreter = interpreterKey(program)
  if (interpreter !== undefined) {
    interpret(st, inv, program, interpreter, record)
    for (const file of pythonFilesRun(st, inv, program)) inlineCode(st, inv, file.text, file.label, 'python3')
    // bun is a runtime and a package manager: `bun install`, `bun run x` and `bun x` run package.json scripts too.
    for (const script of packageScripts(st, inv, program)) st.analyzeFile(script.text, inv.scope, [...inv.via, script.label])
    return staticOutput(program, inv.argv, inv.stdin?.text)
  }
  if (program === 'watch') {
    record({ exclude: inv.argv.map((_, i) => i) })
    let i = 1
    while (i < inv.argv.length && inv.argv[i]!.startsWith('-')) i += /^-(n|-interval)$/.test(inv.argv[i]!) ? 2 : 1
    if (i < inv.argv.length) execString(st, inv, inv.argv.slice(i).join(' '), inv.info.slice(i), 'watch')
    return undefined
  }
  if (program === 'git') {
    flagUnknowns(st, inv, program)
    const applied = patchedByCommand(st, inv, program)
    if (applied) forgetPatched(st, inv, applied)
    trackDownloads(st, inv.scope, program, inv.argv, inv.redirects.writes, inv.stdin?.programs ?? [])
    return gitRun(st, inv, { literal, ...(applied ? { paths: applied } : {}) })
  }
  if (program === 'ssh' || program === 'scp' || program === 'sftp') sshLocalCommands(st, inv, program)
  recordQueries(st, inv)
  const nested = Object.hasOwn(NESTED_COMMANDS, program) ? NESTED_COMMANDS[program]!(inv.argv, inv.stdin?.text) : undefined
  if (nested?.kind === 'string') {
    record({ exclude: nested.exclude })
    // `tar --to-command=sh`, `zip -TT bash`: a shell fed the program's data runs text svc never sees.
    if (program !== 'ssh' && nested.text.split('\n').some(readsCodeFromInput)) st.signals.add('dynamic_exec')
    execString(
      st,
      inv,
      nested.text,
      nested.exclude.map((i) => inv.info[i] ?? PLAIN),
      program === 'ssh' ? 'ssh' : `${program} ${nested.label}`,
    )
    return undefined
  }
  if (nested?.kind === 'argv') {
    // A package spec runs its package's bin: `svc@latest` → `svc`, `@scope/tool@1` → `@scope/tool`.
    const [spec = '', ...rest] = inv.argv.slice(nested.start)
    return dispatch(st, { ...inv, argv: [spec.replace(/(.)@[^/@]*$/, '$1'), ...rest], info: inv.info.slice(nested.start), via: [...inv.via, program] })
  }
  if (program === 'coproc') {
    // `coproc CMD...` or `coproc NAME { CMD...; }` (tree-sitter reads the latter as words).
    const start = inv.argv[1] === '{' ? 2 : inv.argv[2] === '{' ? 3 : 1
    record()
    return dispatch(st, { ...inv, argv: inv.argv.slice(start), info: inv.info.slice(start), via: [...inv.via, 'coproc'] })
  }
  if (program === 'parallel') return parallel(st, inv, record)
  // `direnv allow|exec|reload [DIR]`: DIR's .envrc runs (now, or in the user's shell on the next prompt there).
  if (program === 'direnv' && ['allow', 'permit', 'grant', 'exec', 'reload'].includes(inv.argv[1] ?? '')) {
    const dir = inv.argv[1] === 'reload' ? undefined : inv.argv[2]
    const envrc = scriptToRun(st, inv.scope, `${dir ?? '.'}/.envrc`, 'shell', inv.argv)
    if (envrc === 'unreadable') st.signals.add('unanalysable_script')
    else if (envrc !== undefined) st.analyzeFile(envrc.text, inv.scope, [...inv.via, 'direnv .envrc'])
  }
  const runner = argv0.includes('/') ? undefined : runnerOf(program, inv.argv)
  if (runner?.kind === 'argv') {
    record()
    return dispatch(st, { ...inv, argv: inv.argv.slice(runner.start), info: inv.info.slice(runner.start), via: [...inv.via, runner.label] })
  }
  if (runner?.kind === 'strings') {
    record({ exclude: [...runner.indexes] })
    for (const i of runner.indexes) execString(st, inv, runnerString(inv.argv[i]!, program), [inv.info[i] ?? PLAIN], runner.label)
    return undefined
  }
  const patched = patchedByCommand(st, inv, program)
  if (patched !== undefined) {
    record({ paths: patched })
    forgetPatched(st, inv, patched)
    return undefined
  }
  if (program === 'cp' || program === 'gcp' || program === 'install') rememberProgramCopy(st, inv.scope, inv.argv)
  if (program === 'ln' && inv.argv.some((a) => /^-[a-zA-Z]*s/.test(a) || a === '--symbolic')) {
    const operands = inv.argv.slice(1).filter((a) => !a.startsWith('-'))
    const [target, link] = operands
    const ctx = { home: st.options.home, cwd: inv.scope.cwd }
    const linkPath = link !== undefined ? lexicalPath(link, ctx) : undefined
    const targetPath = target !== undefined && linkPath !== undefined ? lexicalPath(target, { ...ctx, cwd: linkPath.slice(0, linkPath.lastIndexOf('/')) || '/' }) : undefined
    if (linkPath && targetPath) st.links.set(linkPath, targetPath)
  }
  if (program === 'find') {
    record()
    findExec(st, inv)
    return undefined
  }
  if (DOWNLOADERS.has(program)) for (const target of downloadTargets(program, inv.argv)) addDownload(st, inv.scope, target)
  trackDownloads(st, inv.scope, program, inv.argv, inv.redirects.writes, inv.stdin?.programs ?? [])
  if (argv0.includes('/')) {
    runsDownloaded(st, inv.scope, argv0)
    // `./x`, written earlier in the command or on disk: its `#!` line says what runs it (a shell when there is none).
    const script = scriptToRun(st, inv.scope, argv0, 'exec', inv.argv)
    if (script === 'unreadable') st.signals.add('unanalysable_script')
    else if (script !== undefined) {
      const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(script.text)
      const runner = shebang ? (programName(shebang[1]!) === 'env' && shebang[2] ? shebang[2] : programName(shebang[1]!)) : 'sh'
      // An interpreter's script runs as `python3 ./x.py` would: its code is analysed as that language.
      if (!SHELLS.has(runner) && interpreterKey(runner) !== undefined)
        return dispatch(st, { ...inv, argv: [runner, argv0, ...inv.argv.slice(1)], info: [PLAIN, ...inv.info], via: [...inv.via, argv0] })
      if (!script.onDisk) runWrittenFile(st, inv, argv0, program, true)
      else if (SHELLS.has(runner)) st.analyzeFile(script.text, inv.scope, [...inv.via, argv0])
    }
  }
  for (const script of packageScripts(st, inv, program)) st.analyzeFile(script.text, inv.scope, [...inv.via, script.label])
  for (const file of pythonFilesRun(st, inv, program)) inlineCode(st, inv, file.text, file.label, 'python3')
  const toolCommand = toolCode(st, inv, program)
  if (toolCommand !== undefined) st.analyzeString(toolCommand, inv.scope, [...inv.via, `${program} command mode`])
  const recipes = makeRecipes(st, inv, program)
  if (recipes !== undefined) st.analyzeFile(recipes, inv.scope, [...inv.via, `${program} recipes`])
  const directives = goGenerateCommands(st, inv, program)
  if (directives !== undefined) st.analyzeFile(directives, inv.scope, [...inv.via, 'go:generate'])
  record({ urls: urlsFromFiles(st, inv, program) })
  // A program nobody listed, naming a known program among its operands, most likely runs it: analysed too.
  const operand = runner === undefined ? operandProgram(program, inv.argv) : -1
  if (operand > 0) dispatch(st, { ...inv, argv: inv.argv.slice(operand), info: inv.info.slice(operand), via: [...inv.via, `${program} (operand)`] })
  if (program === 'cp') rememberCopy(st, inv.scope, inv.argv)
  const computable = !inv.info.some((i) => i.dynamic)
  return (
    staticOutput(program, inv.argv, inv.stdin?.text) ??
    outputOfKnownFiles(st, inv, program) ??
    (computable ? pathOutput(program, inv.argv, { home: st.options.home, cwd: inv.scope.cwd }) : undefined)
  )
}

/** Options whose file holds destinations: `curl -K config`, `wget -i list`, `aria2c -i list`. */
const URL_FILE_OPTIONS: Readonly<Record<string, readonly string[]>> = { curl: ['-K', '--config'], wget: ['-i', '--input-file'], aria2c: ['-i', '--input-file'] }

function urlsFromFiles(st: AnalysisState, inv: Invocation, program: string): CallUrl[] {
  const options = URL_FILE_OPTIONS[program]
  if (!options) return []
  const out: CallUrl[] = []
  inv.argv.forEach((arg, i) => {
    const file = options.includes(arg)
      ? inv.argv[i + 1]
      : options
          .filter((o) => o.startsWith('--'))
          .map((o) => (arg.startsWith(`${o}=`) ? arg.slice(o.length + 1) : undefined))
          .find((v) => v !== undefined)
    const text = file === undefined ? undefined : instructionsOf(st, inv.scope, file)
    for (const raw of text === undefined ? [] : findUrls(text).slice(0, 64)) {
      const url = parseCallUrl(raw)
      if (url) out.push(url)
    }
  })
  return out
}

/** Programs whose static output is computed from their input, given as file operands instead of stdin. */
const FILE_INPUT: ReadonlySet<string> = new Set(['cat', 'base64', 'base32', 'xxd', 'rev'])

/** `cat f`, `base64 -d f`, ... where `f` was written earlier in the same command: its content is the input. */
function outputOfKnownFiles(st: AnalysisState, inv: Invocation, program: string): string | undefined {
  if (!FILE_INPUT.has(program) || inv.stdin?.text !== undefined) return undefined
  const files = inv.argv.slice(1).filter((a) => !a.startsWith('-'))
  if (files.length === 0) return undefined
  const texts = files.map((f) => writtenText(st, inv.scope, f))
  if (texts.some((t) => t === undefined)) return undefined
  return staticOutput(
    program,
    inv.argv.filter((a, i) => i === 0 || a.startsWith('-')),
    texts.join(''),
  )
}

/**
 * What a shell runs before its command: the file in `BASH_ENV` (bash) or `ENV` (sh), when set in the same
 * command (`BASH_ENV=./x.sh bash -c :`). `PROMPT_COMMAND` is judged where it is assigned (command-variables.ts).
 */
function shellStartup(st: AnalysisState, inv: Invocation, program: string): void {
  for (const name of ['BASH_ENV', 'ENV']) {
    const file = inv.scope.vars.get(name)
    if (file !== undefined && file !== '') runWrittenFile(st, inv, file, program, true)
  }
}

/** Applies pathname expansion to the program word (`/bin/r? -rf ~` runs `/bin/rm -rf ~`). */
function withExpandedProgram(st: AnalysisState, inv: Invocation): Invocation {
  const argv0 = inv.argv[0]
  if (argv0 === undefined) return inv
  const matches = expandProgramWord(argv0, { home: st.options.home, cwd: inv.scope.cwd, disk: st.disk })
  if (matches === undefined) return inv
  const first = inv.info[0] ?? PLAIN
  return { ...inv, argv: [...matches, ...inv.argv.slice(1)], info: [...matches.map(() => first), ...inv.info.slice(1)] }
}

const PARALLEL_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  '-j',
  '--jobs',
  '-S',
  '--sshlogin',
  '-a',
  '--arg-file',
  '-d',
  '--delimiter',
  '-I',
  '--joblog',
  '--results',
  '--tmpdir',
  '-n',
  '--max-args',
  '--timeout',
  '--delay',
  '--retries',
])

/** GNU `parallel CMD ::: ARGS` (or ARGS on stdin): CMD runs in a shell with `{}` (or the end) bound to each argument. */
function parallel(st: AnalysisState, inv: Invocation, record: () => void): undefined {
  record()
  const { argv } = inv
  let i = 1
  while (i < argv.length && argv[i]!.startsWith('-') && argv[i] !== ':::') i += PARALLEL_VALUE_OPTIONS.has(argv[i]!) ? 2 : 1
  const sep = argv.findIndex((a, k) => k >= i && (a === ':::' || a === '::::' || a === ':::+'))
  const template = argv.slice(i, sep === -1 ? argv.length : sep)
  const inputs = sep === -1 ? (inv.stdin?.text?.split('\n').filter((l) => l.trim() !== '') ?? []) : argv.slice(sep + 1).filter((a) => !a.startsWith(':::'))
  const text = template.join(' ')
  for (const input of (inputs.length > 0 ? inputs : ['']).slice(0, MAX_FIND_ROOTS)) {
    const line = text.includes('{}') ? text.split('{}').join(input) : `${text} ${input}`
    execString(st, inv, line, inv.info.slice(i, sep === -1 ? argv.length : sep), 'parallel')
  }
  return undefined
}

/** `find ROOT ... -exec CMD {} ;` runs CMD on what is under ROOT: analyse CMD with `{}` as the root. */
function findExec(st: AnalysisState, inv: Invocation): void {
  const { argv } = inv
  const firstExpr = argv.findIndex((a, i) => i > 0 && (a.startsWith('-') || a === '(' || a === '!'))
  const roots = argv.slice(1, firstExpr === -1 ? argv.length : firstExpr)
  const starts = roots.length > 0 ? roots.slice(0, MAX_FIND_ROOTS) : ['.']
  for (let i = 1; i < argv.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(argv[i]!)) continue
    let end = i + 1
    while (end < argv.length && argv[end] !== ';' && argv[end] !== '+') end++
    const inner = argv.slice(i + 1, end)
    const innerInfo = inv.info.slice(i + 1, end)
    for (const start of starts) {
      dispatch(st, { ...inv, argv: inner.map((a) => a.split('{}').join(start)), info: innerInfo, via: [...inv.via, `find ${argv[i]!}`], stdin: undefined })
    }
    i = end
  }
}

/** Programs that run a shell string given with `-c` as another user or group, or in a recorded terminal. */
const SU_LIKE: ReadonlySet<string> = new Set(['su', 'runuser', 'script', 'sg'])

/** The string `-c STRING` / `--command STRING` / `--command=STRING` gives (before any `--`), with its index. */
function shellStringOption(argv: readonly string[]): { text: string; index: number } | undefined {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') return undefined
    if (arg.startsWith('--command=')) return { text: arg.slice('--command='.length), index: i }
    if ((arg === '-c' || arg === '--command' || /^-[a-zA-Z]*c$/.test(arg)) && i + 1 < argv.length) return { text: argv[i + 1]!, index: i + 1 }
  }
  return undefined
}

/** Python files a routine tool imports: pytest's conftest.py, the setup.py of a project pip installs. */
function pythonFilesRun(st: AnalysisState, inv: Invocation, program: string): { label: string; text: string }[] {
  return [...conftestFiles(st, inv, program), ...setupScripts(st, inv, program)]
}
