/**
 * `go generate` runs the `//go:generate CMD` lines of the Go files in the packages it is given (the current
 * one by default, every one below a directory for `./...`): commands an earlier call may have planted in a
 * source file. At trigger time those files are read (at most MAX_FILES, from disk or this command's writes)
 * and each directive is analysed as a command.
 */
import { instructionsOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import { lexicalPath } from './paths.ts'
import type { AnalysisState } from './state.ts'

const MAX_FILES = 256

/** The directives `go generate` would run, as one script, or undefined when this is no `go generate`. */
export function goGenerateCommands(st: AnalysisState, inv: Invocation, program: string): string | undefined {
  if (program !== 'go' || inv.argv[1] !== 'generate') return undefined
  const packages = inv.argv.slice(2).filter((a) => !a.startsWith('-'))
  const ctx = { home: st.options.home, cwd: inv.scope.cwd }
  const files = new Set<string>()
  for (const pkg of packages.length > 0 ? packages : ['.']) {
    const recursive = pkg === '...' || pkg.endsWith('/...')
    const dir = lexicalPath(recursive ? pkg.replace(/\/?\.\.\.$/, '') || '.' : pkg, ctx)
    // A file named outright (`go generate x.go`) or a package directory, one level or all below it.
    if (dir === undefined) continue
    const inDir = (f: string) => f.endsWith('.go') && f.startsWith(`${dir}/`) && (recursive || !f.slice(dir.length + 1).includes('/'))
    // On disk, and written earlier in this command (not on disk yet).
    const matches = dir.endsWith('.go') ? [dir] : [...st.disk.glob(recursive ? `${dir}/**/*.go` : `${dir}/*.go`), ...[...st.files.keys()].filter(inDir)]
    for (const file of matches) if (files.size < MAX_FILES) files.add(file)
  }
  const directives = [...files].flatMap((file) => [...(instructionsOf(st, inv.scope, file) ?? '').matchAll(/^\/\/go:generate[ \t]+(.+)$/gm)].map((m) => m[1]!))
  return directives.length > 0 ? directives.join('\n') : undefined
}
