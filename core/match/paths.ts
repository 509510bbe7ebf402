/**
 * Path canonicalisation before path globs match: `~` and `$HOME` expanded, relative paths resolved
 * against the call's cwd, `..` and repeated slashes folded, and symlinks resolved where they exist
 * (so a link into `~/.ssh` is seen as `~/.ssh`).
 */
import { realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'

/** Absolute form of `raw` with `~`/`$HOME` expanded and `.`, `..`, `//` folded, without touching the disk. */
export function lexicalPath(raw: string, cwd: string | undefined, home: string): string {
  let p = raw.trim()
  if (p === '~' || p.startsWith('~/')) p = home + p.slice(1)
  else if (p === '$HOME' || p.startsWith('$HOME/')) p = home + p.slice(5)
  else if (p === '${HOME}' || p.startsWith('${HOME}/')) p = home + p.slice(7)
  return isAbsolute(p) ? resolve(p) : resolve(cwd && isAbsolute(cwd) ? cwd : home, p)
}

/** Canonical absolute form of `raw` as seen from `cwd`, symlinks resolved; never throws. */
export function canonicalPath(raw: string, cwd: string | undefined, home: string): string {
  return resolveLinks(lexicalPath(raw, cwd, home))
}

/**
 * Both spellings gates should match: the lexical path and, when a symlink lies on the way, its target.
 * (A link into `~/.ssh` must look like `~/.ssh`; a `~/.claude` that is itself a link, as dotfile managers
 * make it, must still look like `~/.claude`.)
 */
export function pathSpellings(raw: string, cwd: string | undefined, home: string): string[] {
  const lexical = lexicalPath(raw, cwd, home)
  const real = resolveLinks(lexical)
  return real === lexical ? [lexical] : [lexical, real]
}

// realpath of the longest existing prefix, with the missing tail appended (a file about to be created).
function resolveLinks(path: string): string {
  const tail: string[] = []
  let dir = path
  for (let i = 0; i < 64; i++) {
    try {
      const real = realpathSync.native(dir)
      return tail.length === 0 ? real : join(real, ...tail.reverse())
    } catch {
      if (dirname(dir) === dir) return path
      tail.push(basename(dir))
      dir = dirname(dir)
    }
  }
  return path
}
