/**
 * Path canonicalisation: `~`, `$HOME`, relative paths, `..`, repeated slashes, and symlinks where they exist.
 * Gates match canonical absolute paths, so `~/.ssh/../.ssh//id_rsa` and a symlink to it look the same.
 */
import { realpathSync } from 'node:fs'
import { posix } from 'node:path'

export interface PathContext {
  readonly home: string
  readonly cwd?: string
  /** Resolve symlinks of the longest existing prefix (default true). */
  readonly followSymlinks?: boolean
}

/** Longest path considered; longer strings are not paths an agent would plausibly use. */
const MAX_PATH = 4096

/**
 * Lexically canonical absolute form of `raw`, or undefined when it is not a usable path.
 * Relative paths resolve against `cwd`, or stay relative (normalised) when no cwd is known.
 */
export function lexicalPath(raw: string, ctx: PathContext): string | undefined {
  if (raw === '' || raw.length > MAX_PATH || raw.includes('\0') || raw.includes('\n')) return undefined
  let p = raw
  if (p === '~' || p.startsWith('~/')) p = ctx.home + p.slice(1)
  else if (/^\$\{?HOME\}?(\/|$)/.test(p)) p = ctx.home + p.replace(/^\$\{?HOME\}?/, '')
  if (p.startsWith('file://')) p = decodeURIComponentSafe(p.slice('file://'.length))
  if (posix.isAbsolute(p)) return posix.resolve(p)
  if (ctx.cwd) return posix.resolve(ctx.cwd, p)
  const normal = posix.normalize(p)
  return normal.startsWith('../') || normal === '..' ? undefined : normal.replace(/\/$/, '')
}

/**
 * Every canonical spelling gates should see for `raw`: the lexical form and, when a symlink on the way
 * exists, the resolved target (so both `~/.ssh/**` and the link's own location match).
 */
export function canonicalPaths(raw: string, ctx: PathContext): string[] {
  const lexical = lexicalPath(raw, ctx)
  if (lexical === undefined) return []
  if (ctx.followSymlinks === false || !posix.isAbsolute(lexical)) return [lexical]
  const real = realpathOfExistingPrefix(lexical)
  return real === lexical ? [lexical] : [lexical, real]
}

/** realpath of the longest existing prefix, with the non-existing rest appended. */
function realpathOfExistingPrefix(path: string): string {
  let head = path
  let tail = ''
  for (let i = 0; i < 64; i++) {
    try {
      return posix.join(realpathSync.native(head), tail) || '/'
    } catch {
      if (head === '/' || head === '') return path
      tail = tail === '' ? posix.basename(head) : posix.join(posix.basename(head), tail)
      head = posix.dirname(head)
    }
  }
  return path
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
