/**
 * Which test files need a fresh module graph (vitest `isolate`). A module that keeps per-process state would
 * carry one file's calls into the next file run by the same worker: the built-in shell-analysis plugin is one
 * instance per process and holds every terminal's line buffer (the corpus became order-dependent when workers
 * were reused). A test file whose imports reach such a module runs isolated; the others share their worker's
 * module graph, which spares each of them importing it again (a third of `npm run test:fast`'s CPU).
 * Conservative: type-only imports count too, and a file that cannot be read counts as reaching state.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'

/** Modules holding state that outlives one test file (paths from the repository root). */
export const PER_PROCESS_STATE: readonly string[] = ['plugins/shell-analysis/index.ts']

// Static imports and re-exports, side-effect imports and literal dynamic imports of relative paths.
const RELATIVE_IMPORT = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g

/** The test files (relative to `root`) whose import graph reaches a module of `stateful`. */
export function filesReachingState(root: string, testFiles: readonly string[], stateful: readonly string[] = PER_PROCESS_STATE): string[] {
  const targets = new Set(stateful.map((f) => resolve(root, f)))
  const importsOf = new Map<string, string[] | undefined>()
  const imports = (file: string): string[] | undefined => {
    if (!importsOf.has(file)) {
      let text: string | undefined
      try {
        text = readFileSync(file, 'utf8')
      } catch {
        text = undefined
      }
      importsOf.set(file, text === undefined ? undefined : [...text.matchAll(RELATIVE_IMPORT)].map((m) => resolve(dirname(file), m[1]!)).filter((p) => existsSync(p)))
    }
    return importsOf.get(file)
  }
  const reaches = (start: string): boolean => {
    const seen = new Set<string>()
    const stack = [start]
    while (stack.length > 0) {
      const file = stack.pop()!
      if (targets.has(file)) return true
      if (seen.has(file)) continue
      seen.add(file)
      const next = imports(file)
      if (next === undefined) return true
      stack.push(...next)
    }
    return false
  }
  return testFiles.filter((f) => reaches(resolve(root, f))).map((f) => relative(root, resolve(root, f)))
}
