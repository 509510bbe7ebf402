/**
 * Languages svc has no grammar for (awk, Perl, PHP, Tcl, Lua, R, Julia, Elixir, ...) used as text tools that run
 * commands. Each has a few places where text becomes a process: awk's `system(X)`, `print … | X`, `X | getline`,
 * `|&`; Perl's `open(F, "|-", X)`, `open(F, "X |")`, `exec {X} …`; Tcl's `exec`/`open "|X"`; R's `system2`;
 * Julia's `run`/`pipeline`; Elixir's `System.cmd`/`:os.cmd`/`Port.open`. What sits in such a spawn position is
 * a command only when it is a plain literal (then it is analysed as shell text); anything else is unknown code.
 * A literal that names a shell or an interpreter with no code argument runs whatever the program writes to it,
 * which is unknown code too.
 */

const LITERAL = /^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*$/
/** Programs that read code from their input when given no argument (`print x | "sh"`). */
const READS_CODE = /^(?:\/\S*\/)?(?:sh|bash|zsh|dash|ksh|fish|python[\d.]*|perl|ruby|node|php|lua|tclsh|wish|Rscript|R|osascript|awk|gawk|mawk|xargs|env|eval|source|exec)$/

/** A command line that starts a shell or interpreter with no code argument: it runs whatever text it is fed. */
export function readsCodeFromInput(command: string): boolean {
  return READS_CODE.test(command.trim().split(/\s+/)[0] ?? '') && !/\s-\w*[ce]\b/.test(command)
}

/** Spawn callees per language without a grammar (a callee followed by its argument list or a space). */
const SPAWN_CALLEES: Readonly<Record<string, RegExp>> = {
  tcl: /\b(?:exec|open)\s+/g,
  r: /\b(?:system2?|shell|pipe|processx::run|callr::\w+)\s*\(/g,
  julia: /\b(?:run|pipeline|open|read|success|spawn)\s*\(/g,
  elixir: /(?:\bSystem\.(?:cmd|shell)|:os\.cmd|\bPort\.open)\s*\(?/g,
}

function familyOf(program: string): string | undefined {
  if (/^(?:g|m|n)?awk$/.test(program)) return 'awk'
  if (/^perl[\d.]*$/.test(program)) return 'perl'
  if (/^(?:tclsh|wish|expect)[\d.]*$/.test(program)) return 'tcl'
  if (/^(?:R|Rscript)$/.test(program)) return 'r'
  if (program === 'julia') return 'julia'
  if (/^(?:elixir|iex|mix)$/.test(program)) return 'elixir'
  if (program === 'cmake') return 'cmake'
  return undefined
}

/** What the code runs: literal commands to analyse, and whether a spawn position holds anything else. */
export interface Spawns {
  readonly commands: string[]
  readonly unknown: boolean
}

/** The spawn positions of `code` in `program`'s language (empty for languages handled elsewhere). */
export function spawnPositions(program: string, code: string): Spawns {
  const family = familyOf(program)
  const commands: string[] = []
  let unknown = false
  const position = (text: string): void => {
    const m = LITERAL.exec(text)
    if (!m) {
      unknown = true
      return
    }
    // A double-quoted string that interpolates (`"$cmd |"`, `"#{x}"`) is not a plain literal, except in awk and R.
    if (m[1] !== undefined && family !== 'awk' && family !== 'r' && /[$@]|#\{/.test(m[1])) {
      unknown = true
      return
    }
    const command = (m[1] ?? m[2] ?? '').trim()
    if (readsCodeFromInput(command)) unknown = true
    else commands.push(command)
  }
  if (family === 'awk') {
    const text = withoutRegexes(code)
    // `print … | X` and `printf … |& X`: X runs this program's output.
    for (const m of text.matchAll(/(?<!\|)\|(?!\|)&?\s*("(?:[^"\\]|\\.)*"|[^;}\n]+)/g)) if (!/^\s*getline\b/.test(m[1]!)) position(m[1]!)
    // `X | getline` / `X |& getline`: X runs and its output is read.
    for (const m of text.matchAll(/("(?:[^"\\]|\\.)*"|[\w$[\]]+)\s*\|&?\s*getline\b/g)) position(m[1]!)
  } else if (family === 'perl') {
    // `open(F, "|-", LIST)`, `open(F, "-|", LIST)`: LIST runs; a two-argument `open(F, "X |")` runs X in a shell.
    for (const m of code.matchAll(/\bopen\s*\(?\s*[^,]+,\s*(['"])([-|]{1,2})\1\s*,\s*([^;)]+)/g)) if (m[2] !== '<' && m[2] !== '>') position(m[3]!.split(',')[0]!)
    for (const m of code.matchAll(/\bopen\s*\(?\s*[^,]+,\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*[),;]/g)) {
      const mode = (LITERAL.exec(m[1]!)?.[1] ?? LITERAL.exec(m[1]!)?.[2] ?? '').trim()
      if (/^\||\|$/.test(mode)) position(JSON.stringify(mode.replace(/^\||\|$/g, '')))
    }
    // `exec {X} LIST`, `system {X} LIST`: the program comes from a block.
    if (/\b(?:exec|system)\s*\{/.test(code)) unknown = true
  } else if (family === 'cmake') {
    // `execute_process(COMMAND prog args… [COMMAND …] [WORKING_DIRECTORY …])`, `exec_program(prog ARGS …)`: `${…}` is not a literal.
    for (const m of code.matchAll(/\b(?:execute_process|exec_program)\s*\(([^)]*)\)/gi)) {
      for (const c of m[1]!.split(/\bCOMMAND\b/).slice(/^\s*execute_process/i.test(m[0]) ? 1 : 0)) {
        const words = c
          .replace(
            /\b(?:ARGS|WORKING_DIRECTORY|OUTPUT_VARIABLE|RESULT_VARIABLE|ERROR_VARIABLE|TIMEOUT|OUTPUT_QUIET|ERROR_QUIET|COMMAND_ECHO|ENCODING|INPUT_FILE|OUTPUT_FILE|ERROR_FILE)\b[\s\S]*$/,
            '',
          )
          .trim()
        if (words !== '') position(/\$(?:ENV)?\{/.test(words) ? words : JSON.stringify(words.replace(/"/g, '')))
      }
    }
  } else if (family !== undefined) {
    for (const m of code.matchAll(SPAWN_CALLEES[family]!)) {
      const from = (m.index ?? 0) + m[0].length
      const arg = /^\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\[[^\]]*\]|\{[^}]*\}|[^,)\n;]+)/.exec(code.slice(from))?.[1] ?? ''
      // Tcl's `open "|cmd"` and `exec cmd args`; Julia's backtick commands are literal when they interpolate nothing.
      if (family === 'tcl')
        position(/^[{"]/.test(arg) ? JSON.stringify(arg.slice(1, -1).replace(/^\|/, '')) : /^[\w./-]+$/.test(arg) ? JSON.stringify(code.slice(from).split(/[\n;\]]/)[0]!) : arg)
      else if (family === 'julia' && arg.startsWith('`')) position(arg.includes('$') ? arg : JSON.stringify(arg.slice(1, -1)))
      else position(arg)
    }
  }
  return { commands, unknown }
}

/** awk regular expressions (`/a|b/`) hold `|` that is no pipe. */
function withoutRegexes(code: string): string {
  return code.replace(/(^|[\s(,!~{;])\/(?:[^/\\\n]|\\.)+\//g, '$1//')
}

/** Perl's `-M'Module;code'` / `-m…` is `use Module;code`: the code of each such option (plain module names give none). */
export function perlModuleCode(key: string, argv: readonly string[]): string[] {
  if (key !== 'perl') return []
  return argv.flatMap((a) => {
    const module = /^-[Mm]-?(.*[^\w:=,.\s-].*)$/s.exec(a)?.[1]
    return module === undefined ? [] : [`use ${module};`]
  })
}
