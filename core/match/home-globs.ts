/**
 * Path globs bound to one governed user's home: `~` expanded, and each pattern's literal directory
 * prefix also matched through its symlink target. A dotfile manager makes `~/.agent` a link to
 * `~/dotfiles/agent`; a write to `~/dotfiles/agent/settings.json` is a write to `~/.agent/settings.json`
 * and must match that glob. Patterns that start with `**` and a slash are also tried at the home (`~/X/...`).
 * On case-insensitive file systems (macOS, Windows) the globs ignore case: `.SVC.yaml` is `.svc.yaml` there.
 */
import { realpathSync } from 'node:fs'
import { compileGlob, type Glob } from './glob.ts'

/** macOS and Windows file systems ignore case by default: `.SVC.yaml` is `.svc.yaml`, and `RM` runs `/bin/rm`. */
export const CASE_INSENSITIVE_FS = process.platform === 'darwin' || process.platform === 'win32'

/** The directories a pattern may start from: `~`, `$SVC_HOME` (the daemon's home), `$SVC_POLICIES` (its shipped packs). */
export interface GlobRoots {
  readonly home: string
  readonly svcHome?: string
  readonly policiesDir?: string
}

/** Cache key of a set of roots (compile once per distinct key). */
export function globRootsKey(roots: GlobRoots): string {
  return `${roots.home}\u0000${roots.svcHome ?? ''}\u0000${roots.policiesDir ?? ''}`
}

/**
 * Compiles `patterns` for `roots` (call once per roots and cache: it resolves symlinks on disk). `$SVC_HOME`
 * defaults to `<home>/.svc`; a pattern naming `$SVC_POLICIES` when it is unknown matches nothing.
 */
export function compileHomeGlobs(patterns: readonly string[], roots: GlobRoots, caseInsensitive = CASE_INSENSITIVE_FS): Glob[] {
  const { home } = roots
  const vars: [string, string | undefined][] = [
    ['$SVC_HOME', roots.svcHome ?? `${home}/.svc`],
    ['$SVC_POLICIES', roots.policiesDir],
  ]
  const out: Glob[] = []
  for (const pattern of patterns) {
    const variable = vars.find(([name]) => pattern === name || pattern.startsWith(`${name}/`))
    if (variable && variable[1] === undefined) continue
    const bound = resolveDotDot(
      pattern === '~' || pattern.startsWith('~/') ? home + pattern.slice(1) : variable ? escapeGlob(variable[1]!) + pattern.slice(variable[0].length) : pattern,
    )
    const sources = new Set([bound])
    for (const variant of [bound, ...(pattern.startsWith('**/') ? [`${home}/${pattern.slice(3)}`] : [])]) {
      const real = throughLinks(variant)
      if (real !== undefined) sources.add(real)
    }
    for (const source of sources) out.push(compileGlob(source, { pathMode: true, caseInsensitive }))
  }
  return out
}

/**
 * `~/..` names the home's parent: the `..` segments of a pattern's literal prefix are resolved, as the
 * paths it is matched against are (a `..` after a wildcard is left as written).
 */
function resolveDotDot(pattern: string): string {
  if (!pattern.startsWith('/') || !/(^|\/)\.\.(\/|$)/.test(pattern)) return pattern
  const out: string[] = []
  let wild = false
  for (const segment of pattern.split('/').slice(1)) {
    wild ||= /[*?[{\\]/.test(segment)
    if (segment === '..' && !wild) out.pop()
    else out.push(segment)
  }
  return `/${out.join('/')}`
}

function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}\\]/g, '\\$&')
}

/** `pattern` with its literal directory prefix replaced by that prefix's real path, when it differs. */
function throughLinks(pattern: string): string | undefined {
  if (!pattern.startsWith('/')) return undefined
  const segments = pattern.split('/')
  const firstWild = segments.findIndex((s) => /[*?[{\\]/.test(s))
  // The prefix is every literal directory (the last segment may be the file the glob names).
  const literal = firstWild === -1 ? segments.length - 1 : firstWild
  for (let n = literal; n > 1; n--) {
    const prefix = segments.slice(0, n).join('/')
    let real: string
    try {
      real = realpathSync.native(prefix)
    } catch {
      continue
    }
    if (real === prefix) return undefined
    return [escapeGlob(real), ...segments.slice(n)].join('/')
  }
  return undefined
}
