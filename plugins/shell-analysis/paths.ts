/**
 * Path spellings gates should see. The core's `canonicalPath` resolves `~`, `$HOME`, `..`, `//` and
 * symlinks; we add the lexical form too, so a glob on the link's own location (`~/.ssh/**` when
 * `~/.ssh` is itself a link) matches as well as one on its target.
 */
import { posix } from 'node:path'
import { canonicalPath } from '../../core/index.ts'

export interface PathContext {
  readonly home: string
  readonly cwd?: string
}

const MAX_PATH = 4096

/** Lexically canonical absolute form (no symlink resolution); undefined when `raw` is no usable path. */
export function lexicalPath(raw: string, ctx: PathContext): string | undefined {
  if (raw === '' || raw.length > MAX_PATH || raw.includes('\0') || raw.includes('\n')) return undefined
  let p = raw
  if (p === '~' || p.startsWith('~/')) p = ctx.home + p.slice(1)
  else if (/^\$\{?HOME\}?(\/|$)/.test(p)) p = ctx.home + p.replace(/^\$\{?HOME\}?/, '')
  return posix.resolve(ctx.cwd && posix.isAbsolute(ctx.cwd) ? ctx.cwd : ctx.home, p)
}

/** The lexical form and, when a symlink on the way exists, the resolved one. */
export function canonicalPaths(raw: string, ctx: PathContext): string[] {
  const lexical = lexicalPath(raw, ctx)
  if (lexical === undefined) return []
  const real = canonicalPath(lexical, ctx.cwd, ctx.home)
  return real === lexical ? [lexical] : [lexical, real]
}
