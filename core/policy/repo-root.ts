/**
 * Finds the git root of a call's cwd (the directory holding `.git`), with a short-lived cache so the
 * hot path does not walk the file system on every call. `findAll` also returns the roots of enclosing
 * repositories (a `git init` in a subdirectory must not hide the outer repository's policy).
 */
import { statSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'

const TTL_MS = 2000
const MAX_ENTRIES = 1024

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

function walkUp(start: string): string[] {
  const roots: string[] = []
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      statSync(resolve(dir, '.git'))
      roots.push(dir)
    } catch {
      // not here; keep walking
    }
    if (dirname(dir) === dir) return roots
  }
}
