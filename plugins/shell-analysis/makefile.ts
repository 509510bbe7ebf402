/**
 * `make` runs the recipes of the Makefile an earlier call may have written, and the `$(shell ...)` calls and
 * `!=` assignments in it while reading it: all of them are analysed as shell when make is invoked, read from
 * disk (or stdin for `-f -`, or `--eval` text). All recipes are analysed, not only the target's (default goals
 * and prerequisites are not resolved).
 */
import { join } from 'node:path'
import { STDIN_PATHS } from './execution.ts'
import { instructionsOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import { lexicalPath } from './paths.ts'
import type { AnalysisState } from './state.ts'

const MAKES: ReadonlySet<string> = new Set(['make', 'gmake', 'bmake', 'remake'])

/** The commands `make` would run, as one script, or undefined when this is no make or no Makefile is found. */
export function makeRecipes(st: AnalysisState, inv: Invocation, program: string): string | undefined {
  if (!MAKES.has(program)) return undefined
  const { argv } = inv
  // Values of `-X V`, `-XV`, `--long V` and `--long=V`, in order.
  const values = (short: string, ...longs: string[]): string[] =>
    argv.flatMap((a, i) => {
      if (i === 0) return []
      if (a === short || longs.includes(a)) return argv[i + 1] !== undefined ? [argv[i + 1]!] : []
      const long = longs.find((l) => a.startsWith(`${l}=`))
      if (long !== undefined) return [a.slice(long.length + 1)]
      return a.startsWith(short) && a.length > short.length && !a.startsWith('--') ? [a.slice(short.length)] : []
    })
  const dir = values('-C', '--directory')[0]
  const base = dir === undefined ? inv.scope.cwd : lexicalPath(dir, { home: st.options.home, cwd: inv.scope.cwd })
  if (base === undefined) return undefined
  const files = values('-f', '--file', '--makefile')
  // `--eval=TEXT` (and `-E TEXT`) is makefile text read before the makefiles.
  // Variables assigned on the command line (`make CC='$(shell …)'`) are makefile text too: their `$(shell …)` runs.
  const texts = [...values('-E', '--eval'), ...argv.slice(1).filter((a) => /^[\w.-]+\s*(?:::|[:+?!])?=/.test(a))]
  for (const name of files.length > 0 ? files : ['GNUmakefile', 'makefile', 'Makefile']) {
    if (STDIN_PATHS.has(name)) {
      // `make -f - <<EOF` reads the makefile from stdin: known text is analysed, anything else is unknown.
      if (inv.stdin?.text !== undefined) texts.push(inv.stdin.text)
      else st.signals.add('unanalysable_script')
      continue
    }
    const text = instructionsOf(st, inv.scope, join(base, name))
    if (text === undefined) continue
    texts.push(text)
    if (files.length === 0) break
  }
  return texts.length === 0 ? undefined : texts.map(commandsOf).join('\n')
}

/** Recipe lines (tab-indented, `@`/`-`/`+` removed, `$$` as `$`), `$(shell CMD)` and `VAR != CMD`, which run while make reads the file. */
function commandsOf(text: string): string {
  const joined = text.replace(/\\\n/g, ' ')
  const recipes = joined
    .split('\n')
    .filter((l) => l.startsWith('\t'))
    .map((l) =>
      l
        .slice(1)
        .replace(/^[@+-]+/, '')
        .replace(/\$\$/g, '$'),
    )
  // `target: prerequisites ; recipe` puts the first recipe line on the rule line.
  const inline = [...joined.matchAll(/^[^\t#\n=]*?[^:=]:(?![=:])[^;\n=]*;(.*)$/gm)].map((m) =>
    m[1]!
      .trim()
      .replace(/^[@+-]+/, '')
      .replace(/\$\$/g, '$'),
  )
  const shells = [...inline, ...shellCalls(joined), ...[...joined.matchAll(/^[^\t#\n][^\n]*?!=(.*)$/gm)].map((m) => m[1]!.trim())]
  return [...recipes, ...shells].join('\n')
}

/** The commands of `$(shell ...)` / `${shell ...}` calls, with their parentheses balanced. */
function shellCalls(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/\$([({])shell\s/g)) {
    const close = m[1] === '(' ? ')' : '}'
    let depth = 1
    let i = m.index + m[0].length
    const start = i
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === m[1]) depth++
      else if (text[i] === close) depth--
    }
    out.push(text.slice(start, depth === 0 ? i - 1 : i))
  }
  return out
}
