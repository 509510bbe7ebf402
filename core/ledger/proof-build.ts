/**
 * RFC 6962 PATH / SUBPROOF generation over stored perfect-subtree hashes. A perfect subtree is aligned and
 * power-of-two sized, never changes once complete, and is addressed as (level, idx) covering leaves
 * [idx·2^level, (idx+1)·2^level). Any range hash MTH(lo, hi) is its left perfect half plus a recursion on the
 * right, so a proof costs O(log n) point reads.
 */
import { hashChildren, splitPoint } from './merkle.ts'

/** Reads one stored perfect-subtree hash; throws if it is missing (the tree would be broken). */
export type PerfectNodeReader = (level: number, idx: number) => Buffer

/** Computes MTH of leaves [lo, hi) from stored perfect nodes (lo < hi). */
export function rangeHash(read: PerfectNodeReader, lo: number, hi: number): Buffer {
  const n = hi - lo
  const level = Math.log2(n)
  if (Number.isInteger(level) && lo % n === 0) return read(level, lo / n)
  const k = splitPoint(n)
  return hashChildren(rangeHash(read, lo, lo + k), rangeHash(read, lo + k, hi))
}

/** Root of the first `size` leaves: one stored node per set bit of `size`, folded right to left. */
export function rootOfSize(read: PerfectNodeReader, size: number): Buffer | undefined {
  if (size === 0) return undefined
  return rangeHash(read, 0, size)
}

/** Audit path (bottom-up) proving leaf `index` is in the tree of `size` leaves. Requires index < size. */
export function inclusionPath(read: PerfectNodeReader, index: number, size: number): Buffer[] {
  let lo = 0
  let hi = size
  let m = index
  const siblings: Buffer[] = []
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo)
    if (m < k) {
      siblings.push(rangeHash(read, lo + k, hi))
      hi = lo + k
    } else {
      siblings.push(rangeHash(read, lo, lo + k))
      lo = lo + k
      m -= k
    }
  }
  return siblings.reverse()
}

/** Consistency proof (bottom-up) between tree sizes `size1` and `size2`. Requires 0 < size1 <= size2. */
export function consistencyPath(read: PerfectNodeReader, size1: number, size2: number): Buffer[] {
  const topDown: Buffer[] = []
  let lo = 0
  let hi = size2
  let m = size1
  let oldIsWhole = true
  for (;;) {
    const n = hi - lo
    if (m === n) {
      if (!oldIsWhole) topDown.push(rangeHash(read, lo, hi))
      break
    }
    const k = splitPoint(n)
    if (m <= k) {
      topDown.push(rangeHash(read, lo + k, hi))
      hi = lo + k
    } else {
      topDown.push(rangeHash(read, lo, lo + k))
      lo = lo + k
      m -= k
      oldIsWhole = false
    }
  }
  return topDown.reverse()
}
