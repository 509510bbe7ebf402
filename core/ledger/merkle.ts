/**
 * RFC 6962 / RFC 9162 Merkle tree hashing (SHA-256). Leaf hash = SHA-256(0x00 ‖ leaf), node hash =
 * SHA-256(0x01 ‖ left ‖ right), empty tree = SHA-256(""). The 0x00/0x01 prefixes keep a leaf from ever
 * being read as an interior node (second-preimage defence).
 */
import { hash } from 'node:crypto'

/** Every hash in the tree is exactly this many bytes. */
export const HASH_SIZE = 32

const LEAF_PREFIX = Buffer.from([0x00])
const NODE_PREFIX = Buffer.from([0x01])

/** Root of the empty tree: SHA-256 of zero bytes. */
export const EMPTY_ROOT: Buffer = hash('sha256', Buffer.alloc(0), 'buffer')

/** SHA-256(0x00 ‖ leaf). */
export function hashLeaf(leaf: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([LEAF_PREFIX, leaf]), 'buffer')
}

/** SHA-256(0x01 ‖ left ‖ right). */
export function hashChildren(left: Uint8Array, right: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([NODE_PREFIX, left, right]), 'buffer')
}

/** The largest power of two strictly below `n` (n >= 2): where RFC 6962 splits a range of n leaves. */
export function splitPoint(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/** True when `n` is a positive power of two. */
export function isPowerOfTwo(n: number): boolean {
  return n > 0 && Number.isInteger(Math.log2(n)) && 2 ** Math.log2(n) === n
}
