/**
 * Bulk reads for a verifier thread: one aligned range of leaves (only the columns the checks use, as rows of
 * arrays, blobs left as the Uint8Arrays SQLite hands back) and every stored perfect-subtree node the range
 * completes, one range scan per level instead of a point query per node.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { LeafRecord } from './verify-range.ts'

export class RangeReader {
  readonly #leaves: StatementSync
  readonly #nodes: StatementSync

  constructor(db: DatabaseSync) {
    this.#leaves = db.prepare('SELECT seq, body, leaf_hash, sig FROM leaves WHERE seq >= ? AND seq < ? ORDER BY seq')
    this.#leaves.setReturnArrays(true)
    this.#nodes = db.prepare('SELECT idx, hash FROM nodes WHERE level = ? AND idx >= ? AND idx < ? ORDER BY idx')
    this.#nodes.setReturnArrays(true)
  }

  /** Leaves with lo <= seq < hi in seq order. */
  leaves(lo: number, hi: number): LeafRecord[] {
    return (this.#leaves.all(lo, hi) as unknown as [number, string, Uint8Array, Uint8Array | null][]).map(([seq, body, leafHash, sig]) => ({ seq, body, leafHash, sig }))
  }

  /** Lookup of the stored nodes lying wholly inside [lo, hi), by absolute (level, idx); undefined when missing. */
  nodes(lo: number, hi: number): (level: number, idx: number) => Uint8Array | undefined {
    const levels: Map<number, Uint8Array>[] = []
    for (let level = 0; 2 ** level <= hi - lo; level++) {
      const width = 2 ** level
      const byIdx = new Map<number, Uint8Array>()
      for (const [idx, hash] of this.#nodes.all(level, lo / width, Math.floor(hi / width)) as unknown as [number, Uint8Array][]) byIdx.set(idx, hash)
      levels.push(byIdx)
    }
    return (level, idx) => levels[level]?.get(idx)
  }
}
