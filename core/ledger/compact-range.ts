/**
 * The in-memory right edge of the tree: one perfect-subtree hash per set bit of the size, largest first.
 * Appending a leaf merges the trailing completed subtrees, which are exactly the node rows to store.
 */
import { hashChildren } from './merkle.ts'

/** A node completed by an append, to persist as (level, idx, hash). */
export interface CompletedNode {
  readonly level: number
  readonly idx: number
  readonly hash: Buffer
}

/** Mutable compact range of [0, size). Call `append` only after the leaf is committed, or on a copy. */
export class CompactRange {
  #size: number
  #peaks: Buffer[]

  constructor(size = 0, peaks: Buffer[] = []) {
    this.#size = size
    this.#peaks = peaks
  }

  get size(): number {
    return this.#size
  }

  /** Adds a leaf hash; returns every node it completes (level 0 first, the leaf itself included). */
  append(leafHash: Buffer): CompletedNode[] {
    const completed: CompletedNode[] = [{ level: 0, idx: this.#size, hash: leafHash }]
    let h = leafHash
    let idx = this.#size
    let level = 0
    while (idx % 2 === 1) {
      const left = this.#peaks.pop()!
      h = hashChildren(left, h)
      idx = Math.floor(idx / 2)
      level++
      completed.push({ level, idx, hash: h })
    }
    this.#peaks.push(h)
    this.#size++
    return completed
  }

  /** The perfect-subtree hashes covering [0, size), largest first. */
  get peaks(): readonly Buffer[] {
    return this.#peaks
  }

  /** Root of [0, size), or undefined for the empty tree. */
  root(): Buffer | undefined {
    if (this.#peaks.length === 0) return undefined
    let h = this.#peaks[this.#peaks.length - 1]!
    for (let i = this.#peaks.length - 2; i >= 0; i--) h = hashChildren(this.#peaks[i]!, h)
    return h
  }

  clone(): CompactRange {
    return new CompactRange(this.#size, [...this.#peaks])
  }

  /** Rebuilds the range for `size` leaves from stored perfect nodes (one read per set bit). */
  static fromStore(size: number, read: (level: number, idx: number) => Buffer): CompactRange {
    const peaks: Buffer[] = []
    let start = 0
    for (let level = 52; level >= 0; level--) {
      const width = 2 ** level
      if (start + width <= size) {
        peaks.push(read(level, start / width))
        start += width
      }
    }
    return new CompactRange(size, peaks)
  }
}
