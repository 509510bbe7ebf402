/**
 * Stateless RFC 9162 §2.1.3.2 / §2.1.4.2 proof verification. Needs nothing but SHA-256, never throws on
 * malformed input, and answers with a reason so callers (and the probe corpus) can tell failures apart.
 * Indices may exceed 2^32, so halving uses Math.floor on safe integers rather than bit operators.
 */
import { HASH_SIZE, hashChildren, isPowerOfTwo } from '../core/ledger/merkle.ts'

/** Outcome of a proof check: `ok`, or the first reason it failed. */
export type ProofCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string }

const OK: ProofCheck = { ok: true }
const fail = (reason: string): ProofCheck => ({ ok: false, reason })

const half = (x: number): number => Math.floor(x / 2)
const isOdd = (x: number): boolean => x % 2 === 1
const isSafeIndex = (x: number): boolean => Number.isSafeInteger(x) && x >= 0

function allHashes(list: readonly Uint8Array[]): boolean {
  return list.every((h) => h.length === HASH_SIZE)
}

/** Recomputes the root a leaf's audit path leads to, or explains why the path cannot be valid for (index, size). */
function rootFromInclusion(index: number, size: number, leafHash: Uint8Array, proof: readonly Uint8Array[]): Buffer | string {
  if (!isSafeIndex(index) || !isSafeIndex(size)) return 'index and tree size must be non-negative integers'
  if (index >= size) return `leaf index ${index} is not below tree size ${size}`
  if (leafHash.length !== HASH_SIZE) return `leaf hash must be ${HASH_SIZE} bytes`
  if (!allHashes(proof)) return `every proof hash must be ${HASH_SIZE} bytes`
  let a = index
  let b = size - 1
  let h: Buffer = Buffer.from(leafHash)
  for (const p of proof) {
    if (b === 0) return 'proof is longer than the tree is tall'
    if (isOdd(a) || a === b) {
      h = hashChildren(p, h)
      if (!isOdd(a)) {
        while (!isOdd(a) && a !== 0) {
          a = half(a)
          b = half(b)
        }
      }
    } else {
      h = hashChildren(h, p)
    }
    a = half(a)
    b = half(b)
  }
  if (b !== 0) return 'proof is shorter than the tree is tall'
  return h
}

/** Checks that `leafHash` sits at `index` of the tree of `size` leaves whose root is `root`. */
export function verifyInclusion(index: number, size: number, leafHash: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): ProofCheck {
  if (root.length !== HASH_SIZE) return fail(`root must be ${HASH_SIZE} bytes`)
  const computed = rootFromInclusion(index, size, leafHash, proof)
  if (typeof computed === 'string') return fail(computed)
  return computed.equals(root) ? OK : fail('root mismatch')
}

/**
 * Checks that the tree of `size1` leaves with root `root1` is a prefix of the tree of `size2` leaves with
 * root `root2`. A consistency proof from the empty tree is meaningless and rejected, as in transparency-dev.
 */
export function verifyConsistency(size1: number, size2: number, proof: readonly Uint8Array[], root1: Uint8Array, root2: Uint8Array): ProofCheck {
  if (!isSafeIndex(size1) || !isSafeIndex(size2)) return fail('tree sizes must be non-negative integers')
  if (size1 === 0) return fail('consistency from an empty tree is meaningless')
  if (size1 > size2) return fail(`old size ${size1} is larger than new size ${size2}`)
  if (size1 === size2) {
    if (proof.length !== 0) return fail('proof between equal sizes must be empty')
    return Buffer.from(root1).equals(root2) ? OK : fail('roots differ for equal sizes')
  }
  if (root1.length !== HASH_SIZE || root2.length !== HASH_SIZE) return fail(`roots must be ${HASH_SIZE} bytes`)
  if (proof.length === 0) return fail('proof is empty')
  if (!allHashes(proof)) return fail(`every proof hash must be ${HASH_SIZE} bytes`)
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : proof
  let a = size1 - 1
  let b = size2 - 1
  while (isOdd(a)) {
    a = half(a)
    b = half(b)
  }
  let x: Buffer = Buffer.from(path[0]!)
  let y: Buffer = Buffer.from(path[0]!)
  for (const c of path.slice(1)) {
    if (b === 0) return fail('proof is longer than needed')
    if (isOdd(a) || a === b) {
      x = hashChildren(c, x)
      y = hashChildren(c, y)
      if (!isOdd(a)) {
        while (!isOdd(a) && a !== 0) {
          a = half(a)
          b = half(b)
        }
      }
    } else {
      y = hashChildren(y, c)
    }
    a = half(a)
    b = half(b)
  }
  if (b !== 0) return fail('proof is shorter than needed')
  if (!x.equals(root1)) return fail('old root mismatch')
  if (!y.equals(root2)) return fail('new root mismatch')
  return OK
}
