/**
 * Glob patterns compiled to linear-time RE2 regexes, so patterns from untrusted registry rules can
 * never backtrack catastrophically. Supports `*`, `**`, `?`, `[...]`, `{a,b}`.
 */
import { RE2JS } from 're2js'

export interface GlobOptions {
  /** When true, `*` and `?` do not cross `/` (paths); when false they match anything (tool names). */
  readonly pathMode: boolean
  readonly caseInsensitive?: boolean
}

/** A compiled glob: `test(s)` is linear in `s`. */
export interface Glob {
  readonly source: string
  test(value: string): boolean
}

/**
 * Compiles a glob; throws an Error naming the problem for an unbalanced `[` or `{`, or a class RE2 refuses.
 * Most of a policy's globs are literals (no regex at all), and the rest are compiled on first use and shared
 * between gates: building an engine stays cheap for a short-lived `svc explain`, not only for the daemon.
 */
export function compileGlob(pattern: string, options: GlobOptions): Glob {
  // Case folding has Unicode subtleties (ſ folds to s), so only exact-case globs get the literal fast paths.
  // No wildcard (escapes aside: `\[`, the test command): one literal.
  const unescaped = !options.caseInsensitive && /^(?:[^*?[\]{}\\]|\\.)*$/s.test(pattern) && pattern.replace(/\\(.)/gs, '$1')
  if (unescaped !== false) return { source: pattern, test: (value) => value === unescaped }
  const plain = !options.caseInsensitive && literalWithStars(pattern, options.pathMode)
  if (plain) return { source: pattern, test: plain }
  const regex = sharedRegex(globToRegex(pattern, options.pathMode), options.caseInsensitive === true)
  // A `[...]` class is the one construct whose body RE2 may still refuse (a reversed range): compile it now, so
  // a bad pattern fails when the policy loads, never while a call is being decided.
  if (pattern.includes('[')) regex.get()
  if (options.caseInsensitive) return { source: pattern, test: (value) => regex.get().matches(value) }
  // The literal text before the first and after the last wildcard must be there: a cheap necessary check
  // that spares the regex run for most values (gates test many globs against every path and argument).
  const prefix = pattern.slice(0, pattern.search(SPECIAL))
  const last = lastSpecial(pattern)
  // `**/` is one unit, `(?:.*/)?`: the slash after `**` is optional, so it is not part of the literal suffix.
  const suffix = pattern.slice(last + (pattern.startsWith('**/', last - 1) ? 2 : 1))
  return { source: pattern, test: (value) => value.startsWith(prefix) && value.endsWith(suffix) && regex.get().matches(value) }
}

// Literal globs with stars as string tests, the regex's answer without running it (a path-mode `*` stays in a
// segment; strings cut once, not per call): `*X*`, `X*`, `*X`, and in paths `**/X`, `**/*X`, `**/X*`, `**/X/**`, `X/**` (the credential lists).
function literalWithStars(pattern: string, pathMode: boolean): ((value: string) => boolean) | undefined {
  const lit = (s: string, slash = true) => s.length > 0 && !SPECIAL.test(s) && (slash || !s.includes('/'))
  const seg = (v: string) => v.slice(v.lastIndexOf('/') + 1)
  const [deep, x, head, tail, dir] = [pathMode && pattern.startsWith('**/'), pattern.slice(3), pattern.slice(4), pattern.slice(3, -1), pattern.slice(3, -2)]
  if (deep && lit(x)) return ((sx) => (v: string) => v === x || v.endsWith(sx))(`/${x}`)
  if (deep && x.endsWith('/**') && lit(x.slice(0, -3))) return ((sd) => (v: string) => v.startsWith(dir) || v.includes(sd))(`/${dir}`)
  if (deep && x.startsWith('*') && lit(head, false)) return (v) => seg(v).endsWith(head)
  if (deep && x.endsWith('*') && lit(tail, false)) return (v) => seg(v).startsWith(tail)
  if (pathMode && pattern.endsWith('/**') && lit(pattern.slice(0, -3))) return ((p) => (v: string) => v.startsWith(p))(pattern.slice(0, -2))
  const [, lead, y, trail] = /^(\*?)([^*?[\]{}\\]+)(\*?)$/.exec(pattern) ?? []
  if (y === undefined || (!lead && !trail) || (lead && trail && pathMode && y.includes('/'))) return undefined
  const free = (s: string) => !pathMode || !s.includes('/')
  if (lead && trail) return (v) => free(v) && v.includes(y)
  return trail ? (v) => v.startsWith(y) && free(v.slice(y.length)) : (v) => v.endsWith(y) && free(v.slice(0, -y.length))
}

type LazyRegex = { get(): RE2JS }

/**
 * One compiled RE2 per distinct regex and flags, built on first use (policies repeat the same globs often).
 * Bounded: repo layers are written by agents, so the set of patterns a long-lived daemon sees is not. Clearing
 * only ends the sharing; every compiled glob keeps its own regex.
 */
const regexes = new Map<string, LazyRegex>()
const MAX_SHARED = 4096

function sharedRegex(body: string, caseInsensitive: boolean): LazyRegex {
  const key = `${caseInsensitive ? 'i' : 's'}${body}`
  let lazy = regexes.get(key)
  if (!lazy) {
    let compiled: RE2JS | undefined
    // DOTALL: `*` must cross newlines too, or multi-line values (inline code, file names) slip past `*x*`.
    const flags = RE2JS.DOTALL | (caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0)
    lazy = { get: () => (compiled ??= RE2JS.compile(`^(?:${body})$`, flags)) }
    if (regexes.size >= MAX_SHARED) regexes.clear()
    regexes.set(key, lazy)
  }
  return lazy
}

const SPECIAL = /[*?[\]{}\\]/

/** True when a pattern has no wildcard, so (compiled case-sensitively) it matches exactly itself. */
export function isLiteralGlob(pattern: string): boolean {
  return !SPECIAL.test(pattern)
}

const lastSpecial = (pattern: string): number => Math.max(...[...'*?[]{}\\'].map((c) => pattern.lastIndexOf(c)))

function globToRegex(pattern: string, pathMode: boolean): string {
  const any = pathMode ? '[^/]' : '.'
  let out = ''
  let braceDepth = 0
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        // `**/` matches zero or more whole directories; a bare `**` matches anything.
        if (pattern[i + 2] === '/') {
          out += '(?:.*/)?'
          i += 2
        } else {
          out += '.*'
          i += 1
        }
      } else {
        out += `${any}*`
      }
    } else if (c === '?') {
      out += any
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2)
      if (end === -1) throw new Error(`unclosed "[" at position ${i} in glob "${pattern}"`)
      let body = pattern.slice(i + 1, end)
      if (body.startsWith('!')) body = `^${body.slice(1)}`
      out += `[${body.replace(/\\/g, '\\\\')}]`
      i = end
    } else if (c === '{') {
      braceDepth++
      out += '(?:'
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--
      out += ')'
    } else if (c === ',' && braceDepth > 0) {
      out += '|'
    } else if (c === '\\' && i + 1 < pattern.length) {
      out += escapeRegex(pattern[++i]!)
    } else {
      out += escapeRegex(c)
    }
  }
  if (braceDepth !== 0) throw new Error(`unclosed "{" in glob "${pattern}"`)
  return out
}

const escapeRegex = (c: string): string => (/[.*+?^${}()|[\]\\/-]/.test(c) ? `\\${c}` : c)
