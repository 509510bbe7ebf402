/**
 * Commands that apply a patch (`apply_patch <<EOF`, `git apply FILE`, `git am`, `patch -p1 < FILE`) change
 * the files the patch names, not the patch file: those paths are read from the patch text (here-doc,
 * here-string, a file written earlier in the command, or the patch file on disk, bounded).
 *
 * A patch whose text svc cannot read (piped from a download or a decoder, a file that is not there yet or too
 * big, more patch files than it reads, more files than it lists) could change any file in the repository,
 * `.claude/settings.json` and `.svc.yaml` included: that is the `unknown_patch` signal, denied by the analysis pack.
 */
import { looksLikePatch, MAX_PATCH_TARGETS, patchedPaths } from '../../core/index.ts'
import { contentOf, forgetFiles } from './files.ts'
import { lexicalPath } from './paths.ts'
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
  let unknown = sources.length + inv.redirects.reads.length > MAX_PATCH_FILES
  if (inv.stdin) {
    if (inv.stdin.text !== undefined) texts.push(inv.stdin.text)
    // A pipe svc cannot compute (a redirected file is read below, with the other patch files).
    else if (inv.stdin.kind === 'pipe' && sources.length === 0) unknown = true
  }
  for (const source of [...sources, ...inv.redirects.reads].slice(0, MAX_PATCH_FILES)) {
    if (looksLikePatch(source)) texts.push(source)
    else {
      const text = contentOf(st, inv.scope, source)
      if (text !== undefined) texts.push(text)
      else unknown = true
    }
  }
  const paths = texts.map((t) => patchedPaths(t))
  if (unknown || paths.some((p) => p.length >= MAX_PATCH_TARGETS)) st.signals.add('unknown_patch')
  return paths.flat()
}

/** The files a patch changes have text svc does not compute from here on (`--check` and the listings change nothing). */
export function forgetPatched(st: AnalysisState, inv: Invocation, patched: readonly string[]): void {
  if (inv.argv.some((a) => ['--check', '--stat', '--numstat', '--summary', '--dry-run'].includes(a))) return
  forgetFiles(
    st,
    patched.flatMap((p) => lexicalPath(p, { home: st.options.home, cwd: inv.scope.cwd }) ?? []),
  )
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
