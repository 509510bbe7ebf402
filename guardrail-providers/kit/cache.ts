/**
 * The classification cache behind `cache_ttl`: bounded (least recently used entries go first), keyed by a
 * sha256 of provider, model and the classified text, so neither payloads nor credentials are kept as keys.
 */
import { canonicalSha256, type ClassifierResult } from '../../core/index.ts'

/** Most entries one provider keeps; a classifier result is small, so this bounds memory to a few MiB. */
export const CACHE_MAX_ENTRIES = 2048

export class ClassificationCache {
  readonly #entries = new Map<string, { expires: number; result: ClassifierResult }>()
  readonly #max: number

  constructor(max = CACHE_MAX_ENTRIES) {
    this.#max = max
  }

  /** The cache key of one classification (a hash: no payload text, no secret). */
  static key(parts: { provider: string; model: string; text: string; context: readonly { field: string; value: string }[] }): string {
    return canonicalSha256(parts)
  }

  get(key: string, now: number): ClassifierResult | undefined {
    const hit = this.#entries.get(key)
    if (!hit) return undefined
    this.#entries.delete(key)
    if (hit.expires <= now) return undefined
    this.#entries.set(key, hit)
    return hit.result
  }

  set(key: string, result: ClassifierResult, ttlMs: number, now: number): void {
    if (ttlMs <= 0) return
    this.#entries.delete(key)
    this.#entries.set(key, { expires: now + ttlMs, result })
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!)
  }

  get size(): number {
    return this.#entries.size
  }
}
