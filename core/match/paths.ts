/**
 * Path canonicalisation before path globs match: `~` and `$HOME` expanded, relative paths resolved
 * against the call's cwd, `..` and repeated slashes folded, and symlinks resolved where they exist
 * (so a link into `~/.ssh` is seen as `~/.ssh`).
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
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
 * (A link into `~/.ssh` must look like `~/.ssh`; a harness config dir such as `~/.agent` that is itself a link, as
 * dotfile managers make it, must still look like `~/.agent`.)
 */
export function pathSpellings(raw: string, cwd: string | undefined, home: string): string[] {
  const lexical = lexicalPath(raw, cwd, home)
  const real = resolveLinks(lexical)
  return real === lexical ? [lexical] : [lexical, real]
}

/** How many symbolic links one path may pass through before we stop following (as the kernel's ELOOP). */
const MAX_LINKS = 40

/**
 * The path the file system would really reach: symlinks resolved, including a dangling link (which a
 * write would create the target of), and a missing tail appended to the deepest existing directory.
 * Uses lstat without exceptions on the hot path (a thrown ENOENT per component is costly).
 */
function resolveLinks(path: string, links = 0): string {
  let st: ReturnType<typeof lstatSync>
  try {
    st = lstatSync(path, { throwIfNoEntry: false })
  } catch {
    // ELOOP (a symlink loop on the way), ENAMETOOLONG, ENOTDIR, EACCES: the path cannot be followed further; it still gets a verdict.
    return path
  }
  if (!st) {
    const parent = dirname(path)
    return parent === path ? path : join(resolveLinks(parent, links), basename(path))
  }
  if (st.isSymbolicLink()) {
    if (links >= MAX_LINKS) return path
    let target: string
    try {
      target = readlinkSync(path)
    } catch {
      return path
    }
    return resolveLinks(resolve(resolveLinks(dirname(path), links), target), links + 1)
  }
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}
