/**
 * The protected set (plugins/protected-set/set.ts) as paths an OS sandbox takes: absolute, with `*` only where
 * sandbox-runtime expands read-deny globs. `~/x/**` is the directory `~/x`; a project glob `**\/x` is `x` in the
 * home and at the root of the project `--repo` names (a deeper walk would run on every command); a write path
 * with a wildcard is denied from its last fixed directory (outside the workspace a sandbox denies writes anyway); the
 * project's `.git/config` is denied too. A list's `rootIfPresent` items are named at the project root only when there.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { ProtectedList } from '../../harness-contract/index.ts'

export interface SandboxPaths {
  readonly denyRead: readonly string[]
  /** Carve-outs of `denyRead` (public keys, .env templates). */
  readonly allowRead: readonly string[]
  readonly denyWrite: readonly string[]
  /** Globs only the gate enforces, with the reason. */
  readonly gateOnly: readonly string[]
}

interface Where {
  readonly home: string
  readonly repo?: string
  readonly policiesDir: string
}

const WILD = /[*?[]/

/** Every absolute spelling of one glob (before wildcard trimming). */
function anchored(glob: string, w: Where): string[] {
  const trimmed = glob.endsWith('/**') ? glob.slice(0, -3) : glob
  if (trimmed === '~') return [w.home]
  if (trimmed.startsWith('~/')) return [join(w.home, trimmed.slice(2))]
  if (trimmed.startsWith('$SVC_POLICIES')) return [w.policiesDir]
  if (trimmed.startsWith('**/')) {
    const tail = trimmed.slice(3)
    if (tail.startsWith('**')) return []
    return [join(w.home, tail), ...(w.repo ? [join(w.repo, tail)] : [])]
  }
  if (trimmed.startsWith('/')) return [trimmed]
  return []
}

/** The last directory of `path` before its first wildcard component. */
function fixedPrefix(path: string): string {
  if (!WILD.test(path)) return path
  let dir = path
  while (WILD.test(dir)) dir = dirname(dir)
  return dir
}

export function sandboxPaths(set: readonly ProtectedList[], w: Where): SandboxPaths {
  const denyRead = new Set<string>()
  const allowRead = new Set<string>()
  const denyWrite = new Set<string>()
  const gateOnly: string[] = []
  for (const list of set.filter((l) => l.kind !== 'env')) {
    for (const glob of list.globs) {
      const reason = list.gateOnly?.[glob]
      if (reason) {
        gateOnly.push(`${glob} (${reason})`)
        continue
      }
      // An absent copy at the project root that nothing loads from there: no placeholder for every command to trip on.
      const paths = anchored(glob, w).filter((p) => !list.rootIfPresent?.[glob] || !w.repo || dirname(p) !== w.repo || existsSync(p))
      if (list.keep === 'read') for (const p of paths) denyRead.add(p)
      else if (list.keep === 'write') for (const p of paths) denyWrite.add(fixedPrefix(p))
      else for (const p of paths) allowRead.add(p)
    }
    // A carve-out like `**/*.pub` also names the files inside the directories its list denies (`~/.ssh/*.pub`).
    if (list.keep === 'except') {
      const of = set.find((l) => l.name === list.of)
      const dirs = (of?.globs ?? []).filter((g) => g.startsWith('~/') && !WILD.test(g) && !g.includes('/', 2)).flatMap((g) => anchored(g, w))
      for (const glob of list.globs.filter((g) => g.startsWith('**/') && !g.includes('/', 3))) for (const d of dirs) allowRead.add(join(d, glob.slice(3)))
    }
  }
  // sandbox-runtime makes `.git/config` read-only only under its own working directory (the harness's launch
  // directory): a session started in a subdirectory of the project would leave the project's writable.
  if (w.repo) denyWrite.add(join(w.repo, '.git', 'config'))
  return { denyRead: [...denyRead], allowRead: [...allowRead], denyWrite: [...denyWrite], gateOnly }
}
