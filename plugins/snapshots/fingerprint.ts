/**
 * The stat fingerprint of what a snapshot's tree covers, so that an unchanged work tree is recognised with lstat
 * calls and no git process (the check path). It holds the lstat (mtime and ctime in ns, size, inode, mode) of every
 * file in the tree and of every directory git walks for untracked files (a file or directory created, removed or
 * renamed changes its parent's mtime), plus every `.gitignore` and `.gitattributes` seen (they decide what a tree
 * holds, even when they ignore themselves). Correctness over speed: an entry whose mtime or ctime is not older than
 * the fingerprint's own time (less a file system's coarsest granularity) is racy — a write in the same tick leaves
 * its stat unchanged — and counts as changed, as in git's index; so does any entry that could not be stat'ed.
 */
import { lstatSync, readdirSync, type BigIntStats } from 'node:fs'
import { join } from 'node:path'

/** Below the fingerprint's time, how old an entry must be to be trusted: 2 s covers FAT's timestamps, 1 s ext3's. */
const RACY_NS = 2_000_000_000n

export interface Fingerprint {
  readonly tree: string
  /** Paths relative to the workspace ('' is the workspace itself). */
  readonly paths: readonly string[]
  /** Five per path: mtime ns, ctime ns, size, inode, mode (mode 0 never matches: racy or absent). */
  readonly stats: BigUint64Array
}

export interface WalkResult {
  /** Directories git walks (not excluded), '' first, and the ignore and attribute files in them. */
  readonly entries: readonly string[]
  /** A `.git` below the top (a nested repository or submodule): its commits change the tree with no stat of ours. */
  readonly nested: boolean
}

const RULE_FILES = new Set(['.gitignore', '.gitattributes'])

/** Walks `workspace` as git does for untracked files, skipping `.git` and the directories in `excluded` (relative). */
export function walkWorkTree(workspace: string, excluded: ReadonlySet<string>): WalkResult {
  const entries: string[] = []
  let nested = false
  const walk = (rel: string): void => {
    entries.push(rel)
    let names
    try {
      names = readdirSync(join(workspace, rel), { withFileTypes: true })
    } catch {
      return // recorded as absent: changed on the next check, so the full path runs
    }
    for (const d of names) {
      const child = rel ? `${rel}/${d.name}` : d.name
      if (d.name === '.git') nested ||= rel !== ''
      else if (d.isDirectory()) {
        if (!excluded.has(child)) walk(child)
      } else if (RULE_FILES.has(d.name)) entries.push(child)
    }
  }
  walk('')
  return { entries, nested }
}

// The workspace itself with a trailing slash: when its path is a symlink, its directory is what git walks.
const pathOf = (workspace: string, rel: string) => (rel ? join(workspace, rel) : `${workspace}/`)

function stat(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false })
  } catch {
    return undefined // a component is not a directory any more
  }
}

/** The fingerprint of `paths` under `workspace` for `tree`, captured after `sinceNs` (a file system time). */
export function takeFingerprint(workspace: string, tree: string, paths: readonly string[], sinceNs: bigint): Fingerprint {
  const unique = [...new Set(paths)]
  const stats = new BigUint64Array(unique.length * 5)
  const trusted = sinceNs - RACY_NS
  for (let i = 0, o = 0; i < unique.length; i++, o += 5) {
    const st = stat(pathOf(workspace, unique[i]!))
    if (!st) continue
    stats[o] = st.mtimeNs
    stats[o + 1] = st.ctimeNs
    stats[o + 2] = st.size
    stats[o + 3] = st.ino
    stats[o + 4] = st.mtimeNs >= trusted || st.ctimeNs >= trusted ? 0n : st.mode
  }
  return { tree, paths: unique, stats }
}

const S_IFMT = 0o170000n
const S_IFREG = 0o100000n

/**
 * The entries of `fp` whose stat changed (racy and absent ones included): none when the tree is unchanged; undefined
 * when more than `limit` did, or one is not a plain file now, or is an ignore or attribute file — then the set of
 * files may have changed too (a directory's mtime moves with its entries), and only a full pass of git can tell.
 */
export function changedFiles(workspace: string, fp: Fingerprint, limit: number): number[] | undefined {
  const s = fp.stats
  const out: number[] = []
  for (let i = 0; i < fp.paths.length; i++) {
    const rel = fp.paths[i]!
    const st = stat(pathOf(workspace, rel))
    const o = i * 5
    if (st && st.mode === s[o + 4] && st.mtimeNs === s[o] && st.ctimeNs === s[o + 1] && st.size === s[o + 2] && st.ino === s[o + 3]) continue
    if (!st || (st.mode & S_IFMT) !== S_IFREG || RULE_FILES.has(rel.slice(rel.lastIndexOf('/') + 1)) || out.length >= limit) return undefined
    out.push(i)
  }
  return out
}

/** True only when every entry of `fp` still has the stat it had (and none was racy or absent). */
export function unchanged(workspace: string, fp: Fingerprint): boolean {
  return changedFiles(workspace, fp, 0)?.length === 0
}

/** `fp` for a new `tree` in which only the files at `indexes` were read again (after `sinceNs`). */
export function restat(workspace: string, fp: Fingerprint, tree: string, indexes: readonly number[], sinceNs: bigint): Fingerprint {
  const stats = fp.stats.slice()
  const fresh = takeFingerprint(
    workspace,
    tree,
    indexes.map((i) => fp.paths[i]!),
    sinceNs,
  )
  indexes.forEach((i, k) => {
    stats.set(fresh.stats.subarray(k * 5, k * 5 + 5), i * 5)
  })
  return { tree, paths: fp.paths, stats }
}

/** The fingerprint as JSON text (kept in the store, beside the private index); the stats as base64 of their bytes. */
export function serialise(fp: Fingerprint): string {
  const stats = Buffer.from(fp.stats.buffer, fp.stats.byteOffset, fp.stats.byteLength).toString('base64')
  return JSON.stringify({ v: 2, tree: fp.tree, paths: fp.paths, stats })
}

/** A fingerprint read back, or undefined when the text is not one (the full path then runs and writes a new one). */
export function deserialise(text: string): Fingerprint | undefined {
  try {
    const o = JSON.parse(text) as { v?: number; tree?: string; paths?: string[]; stats?: string }
    if (o.v !== 2 || typeof o.tree !== 'string' || !Array.isArray(o.paths) || typeof o.stats !== 'string') return undefined
    const bytes = Buffer.from(o.stats, 'base64')
    if (bytes.length !== o.paths.length * 40) return undefined
    // A copy: a BigUint64Array needs its bytes 8-aligned, which a decoded Buffer's need not be.
    const stats = new BigUint64Array(o.paths.length * 5)
    new Uint8Array(stats.buffer).set(bytes)
    return { tree: o.tree, paths: o.paths, stats }
  } catch {
    return undefined
  }
}

/**
 * The directories `git ls-files -z --others --ignored --exclude-standard --directory` shows git did not descend into:
 * a `dir/` line with nothing listed below it (a directory git walked, holding ignored files, is listed with them).
 */
export function excludedDirs(lsFiles: string): Set<string> {
  const lines = lsFiles.split('\0').filter(Boolean).sort()
  const out = new Set<string>()
  lines.forEach((line, i) => {
    if (line.endsWith('/') && !lines[i + 1]?.startsWith(line)) out.add(line.slice(0, -1))
  })
  return out
}
