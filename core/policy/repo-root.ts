/**
 * Finds the git root of a call's cwd (the directory holding `.git`), with a short-lived cache so the
 * hot path does not walk the file system on every call. `findAll` also returns the roots of enclosing
 * repositories (a `git init` in a subdirectory must not hide the outer repository's policy), and a directory
 * holding `.svc.yaml` is a root even without `.git`.
 */
import { statSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { REPO_POLICY_FILE } from './sources.ts'

const TTL_MS = 2000
const MAX_ENTRIES = 1024

/** Repository roots of a cwd, cached for a couple of seconds per directory. */
export class RepoRootFinder {
  readonly #cache = new Map<string, { roots: string[]; at: number }>()

  /** The innermost git root at or above `cwd`. */
  find(cwd: string | undefined, now: number): string | undefined {
    return this.findAll(cwd, now)[0]
  }

  /** Every git root at or above `dir`, innermost first. */
  findAll(dir: string | undefined, now: number): string[] {
    if (!dir || !isAbsolute(dir)) return []
    const hit = this.#cache.get(dir)
    if (hit && now - hit.at < TTL_MS) return hit.roots
    const roots = walkUp(resolve(dir))
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear()
    this.#cache.set(dir, { roots, at: now })
    return roots
  }
}

// A directory holding `.svc.yaml` counts even without `.git`: moving `.git` away must not drop the policy.
const MARKERS = ['.git', REPO_POLICY_FILE] as const

function walkUp(start: string): string[] {
  const roots: string[] = []
  for (let dir = start; ; dir = dirname(dir)) {
    if (MARKERS.some((m) => exists(resolve(dir, m)))) roots.push(dir)
    if (dirname(dir) === dir) return roots
  }
}

// A stat that does not throw for a missing file: most directories have neither marker, and a thrown ENOENT is the costly part.
function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined
  } catch {
    return false
  }
}
