/**
 * Finds the git root of a call's cwd (the directory holding `.git`), with a short-lived cache so the
 * hot path does not walk the file system on every call.
 */
import { statSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'

const TTL_MS = 2000
const MAX_ENTRIES = 1024

export class RepoRootFinder {
  readonly #cache = new Map<string, { root: string | undefined; at: number }>()

  find(cwd: string | undefined, now: number): string | undefined {
    if (!cwd || !isAbsolute(cwd)) return undefined
    const hit = this.#cache.get(cwd)
    if (hit && now - hit.at < TTL_MS) return hit.root
    const root = walkUp(resolve(cwd))
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear()
    this.#cache.set(cwd, { root, at: now })
    return root
  }
}

function walkUp(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      statSync(resolve(dir, '.git'))
      return dir
    } catch {
      // not here; keep walking
    }
    if (dirname(dir) === dir) return undefined
  }
}
