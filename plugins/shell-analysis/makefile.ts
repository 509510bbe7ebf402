/**
 * `make` runs the recipes of the Makefile an earlier call may have written: every recipe line (tab-indented,
 * `@`/`-`/`+` prefixes removed, `$$` as `$`) is analysed as shell when make is invoked, read from disk.
 * All recipes are analysed, not only the target's (default goals and prerequisites are not resolved).
 */
import { join } from 'node:path'
import { instructionsOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import { lexicalPath } from './paths.ts'
import type { AnalysisState } from './state.ts'

const MAKES: ReadonlySet<string> = new Set(['make', 'gmake', 'bmake', 'remake'])

/** The recipes `make` would run, as one script, or undefined when this is no make or no Makefile is found. */
export function makeRecipes(st: AnalysisState, inv: Invocation, program: string): string | undefined {
  if (!MAKES.has(program)) return undefined
  const { argv } = inv
  const at = (flag: string): string | undefined => {
    const i = argv.findIndex((a) => a === flag)
    return i > 0 ? argv[i + 1] : argv.find((a) => a.startsWith(flag) && a.length > flag.length)?.slice(flag.length)
  }
  const dir = at('-C') ?? at('--directory=')
  const base = dir === undefined ? inv.scope.cwd : lexicalPath(dir, { home: st.options.home, cwd: inv.scope.cwd })
  if (base === undefined) return undefined
  const file = at('-f') ?? at('--file=') ?? at('--makefile=')
  const candidates = file !== undefined ? [file] : ['GNUmakefile', 'makefile', 'Makefile']
  for (const name of candidates) {
    const text = instructionsOf(st, inv.scope, join(base, name))
    if (text === undefined) continue
    return text
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((l) => l.startsWith('\t'))
      .map((l) => l.slice(1).replace(/^[@+-]+/, '').replace(/\$\$/g, '$'))
      .join('\n')
  }
  return undefined
}
