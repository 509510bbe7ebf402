/**
 * Path canonicalisation before path globs match: `~` and `$HOME` expanded, relative paths resolved
 * against the call's cwd, `..` and repeated slashes folded, and symlinks resolved where they exist
 * (so a link into `~/.ssh` is seen as `~/.ssh`).
 */
import { realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'

/** Canonical absolute form of `raw` as seen from `cwd`; never throws. */
export function canonicalPath(raw: string, cwd: string | undefined, home: string): string {
  let p = raw.trim()
  if (p === '~' || p.startsWith('~/')) p = home + p.slice(1)
  else if (p === '$HOME' || p.startsWith('$HOME/')) p = home + p.slice(5)
  else if (p === '${HOME}' || p.startsWith('${HOME}/')) p = home + p.slice(7)
  const absolute = isAbsolute(p) ? resolve(p) : resolve(cwd && isAbsolute(cwd) ? cwd : home, p)
  return resolveLinks(absolute)
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
