/**
 * Commands that apply a patch (`apply_patch <<EOF`, `git apply FILE`, `git am`, `patch -p1 < FILE`) change
 * the files the patch names, not the patch file: those paths are read from the patch text (here-doc,
 * here-string, a file written earlier in the command, or the patch file on disk, bounded).
 */
import { looksLikePatch, patchedPaths } from '../../core/index.ts'
import { contentOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import type { AnalysisState } from './state.ts'

const MAX_PATCH_FILES = 8

/** Paths changed by a patch-applying command, or undefined when `inv` applies no patch. */
export function patchedByCommand(st: AnalysisState, inv: Invocation, program: string): string[] | undefined {
  const args = inv.argv.slice(1)
  let sources: string[]
  if (program === 'apply_patch' || program === 'applypatch') sources = args.filter((a) => !a.startsWith('-'))
  else if (program === 'patch') sources = optionValues(args, ['-i', '--input'])
  else if (program === 'git') {
    const sub = gitSubcommand(args)
    if (sub === undefined || !['apply', 'am'].includes(args[sub]!)) return undefined
    sources = args.slice(sub + 1).filter((a) => !a.startsWith('-'))
  } else return undefined
  const texts: string[] = []
  if (inv.stdin?.text !== undefined) texts.push(inv.stdin.text)
  for (const source of [...sources, ...inv.redirects.reads].slice(0, MAX_PATCH_FILES)) {
    if (looksLikePatch(source)) texts.push(source)
    else {
      const text = contentOf(st, inv.scope, source)
      if (text !== undefined) texts.push(text)
    }
  }
  return texts.flatMap((t) => patchedPaths(t))
}

function optionValues(args: readonly string[], names: readonly string[]): string[] {
  const out: string[] = []
  args.forEach((a, i) => {
    if (names.includes(a) && args[i + 1] !== undefined) out.push(args[i + 1]!)
    for (const n of names) if (n.startsWith('--') && a.startsWith(`${n}=`)) out.push(a.slice(n.length + 1))
  })
  return out
}

/** Index (in args) of git's subcommand, after global options (`-C dir`, `-c k=v`, `--git-dir=...`). */
function gitSubcommand(args: readonly string[]): number | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-C' || a === '-c' || a === '--git-dir' || a === '--work-tree' || a === '--namespace') i++
    else if (!a.startsWith('-')) return i
  }
  return undefined
}
