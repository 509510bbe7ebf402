/**
 * Path globs for gate kinds whose patterns name `~`, `$SVC_HOME` or `$SVC_POLICIES`: what those mean
 * comes with each request's context, and binding them resolves symlinks on disk, so the bound globs are
 * compiled on first use per distinct set of roots and kept.
 */
import { compileGlob, type Glob } from './glob.ts'
import { globList } from './glob-list.ts'
import { CASE_INSENSITIVE_FS, compileHomeGlobs, globRootsKey, type GlobRoots } from './home-globs.ts'

/** The symbolic roots path globs may name (see home-globs.ts). */
const PATH_BINDINGS = ['$SVC_HOME', '$SVC_POLICIES']

/**
 * Checks every pattern now (a bad glob is a policy load error, not a request-time one) and returns the
 * lookup a compiled predicate calls with its request context.
 */
export function homeGlobsFor(patterns: readonly string[]): (roots: GlobRoots) => Glob {
  for (const pattern of patterns) {
    // A misspelt binding would otherwise be literal text that never matches: a silent hole in a protection rule.
    for (const [name] of pattern.matchAll(/\$\{?SVC_[A-Za-z0-9_]*/g)) {
      const bare = name.replace('{', '')
      if (!PATH_BINDINGS.includes(bare)) throw new Error(`unknown binding "${bare}" in path glob "${pattern}" (known: ${PATH_BINDINGS.join(', ')})`)
    }
    compileGlob(pattern, { pathMode: true })
  }
  const byRoots = new Map<string, Glob>()
  // A daemon's roots never change between calls: the last ones answer without building a key (the same
  // strings every call, so each comparison is a pointer check).
  let last: { home: string; svcHome?: string; policiesDir?: string; globs: Glob } | undefined
  return function homeGlobs(roots) {
    if (last && last.home === roots.home && last.svcHome === roots.svcHome && last.policiesDir === roots.policiesDir) return last.globs
    const key = globRootsKey(roots)
    const globs = byRoots.get(key) ?? byRoots.set(key, globList(compileHomeGlobs(patterns, roots), CASE_INSENSITIVE_FS)).get(key)!
    last = { home: roots.home, svcHome: roots.svcHome, policiesDir: roots.policiesDir, globs }
    return globs
  }
}
