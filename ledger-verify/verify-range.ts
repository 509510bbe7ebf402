/**
 * Checks one contiguous range of leaves [lo, …) given the session table: canonical JCS bytes at the right
 * seq, the prev_leaf_hash chain (from the stored hash of leaf lo-1), the stored leaf hash, every signature
 * (or the unsigned-leaf rule), and every perfect-subtree node the range completes. `lo` must be aligned to
 * a power of two at least as large as the range, so the range's nodes never need a leaf outside it.
 */
import { CompactRange } from '../core/ledger/compact-range.ts'
import type { SignatureVerifier } from '../core/ledger/ed25519.ts'
import { leafSigMessage, type LeafObject } from '../core/ledger/leaf.ts'
import { hashLeaf } from '../core/ledger/merkle.ts'
import { isCanonicalText } from './verify-canonical.ts'
import { unsignedLeafProblem, type IdleCheck, type SessionTable } from './verify-sessions.ts'

/** One leaf as exported or stored. */
export interface LeafRecord {
  readonly seq: number
  readonly body: string
  readonly sig: Uint8Array | null
  readonly leafHash?: Uint8Array
}

export interface RangeInput {
  readonly lo: number
  /** Hex leaf hash of leaf lo-1 (GENESIS_PREV for lo = 0). */
  readonly prevHash: string
  readonly leaves: Iterable<LeafRecord>
  readonly table: SessionTable
  readonly verify: SignatureVerifier
  readonly storedNode?: (level: number, idx: number) => Uint8Array | undefined
  /** Tree sizes (absolute) whose root to report; only meaningful when lo = 0. */
  readonly wantRootsAt?: ReadonlySet<number>
}

export interface RangeResult {
  readonly count: number
  readonly signed: number
  readonly unsigned: number
  readonly problems: string[]
  readonly problemCount: number
  readonly idleChecks: IdleCheck[]
  /** When each session last signed within the range. */
  readonly lastSigned: Map<string, number>
  readonly rootsAt: Map<number, Buffer>
  /** Root of the range's own leaves (the whole tree's root when lo = 0). */
  readonly root: Buffer | undefined
}

export const MAX_REPORTED = 50

export function verifyRange(input: RangeInput): RangeResult {
  const { lo, table } = input
  const problems: string[] = []
  let problemCount = 0
  const problem = (text: string): void => {
    problemCount++
    if (problems.length < MAX_REPORTED) problems.push(text)
  }
  const local = new CompactRange()
  const idleChecks: IdleCheck[] = []
  const lastSigned = new Map<string, number>()
  const rootsAt = new Map<number, Buffer>()
  let prev = input.prevHash
  let signed = 0
  let unsigned = 0

  for (const record of input.leaves) {
    const seq = lo + local.size
    const at = `seq ${seq}`
    const leafHash = hashLeaf(Buffer.from(record.body, 'utf8'))
    let leaf: LeafObject | undefined
    try {
      leaf = JSON.parse(record.body) as LeafObject
      if (!isCanonicalText(record.body, leaf)) problem(`${at}: leaf bytes are not canonical JCS`)
    } catch {
      problem(`${at}: leaf is not JSON`)
    }
    if (record.seq !== seq) problem(`${at}: stored as seq ${record.seq} (gap or reordering)`)
    if (record.leafHash && !leafHash.equals(record.leafHash)) problem(`${at}: stored leaf hash does not match the leaf bytes`)
    if (leaf) {
      if (leaf.seq !== seq) problem(`${at}: leaf names seq ${leaf.seq}`)
      if (leaf.prev_leaf_hash !== prev) problem(`${at}: prev_leaf_hash does not chain to the previous leaf`)
      const isEvent = leaf.type === 'session' || leaf.type === 'ledger'
      if (isEvent !== table.eventSeqs.has(seq))
        problem(`${at}: ${isEvent ? 'event leaf missing from' : 'leaf posing as an event in'} the ledger's index (a verdict column was altered)`)
      if (leaf.signer === 'none' || leaf.signer === 'unattested') {
        unsigned++
        if (record.sig) problem(`${at}: ${leaf.signer} leaf carries a signature`)
        const verdict = unsignedLeafProblem(table, leaf, seq, lastSigned.get(leaf.session_id))
        if (typeof verdict === 'string') problem(`${at}: ${verdict}`)
        else if (verdict) idleChecks.push(verdict)
      } else {
        signed++
        checkSigned(leaf, record.sig, leafHash, seq, at)
      }
    }
    prev = leafHash.toString('hex')
    for (const node of local.append(leafHash)) {
      if (!input.storedNode) break
      const idx = lo / 2 ** node.level + node.idx
      const stored = input.storedNode(node.level, idx)
      if (!stored || !node.hash.equals(stored)) problem(`stored node (${node.level}, ${idx}) ${stored ? 'differs from the recomputed hash' : 'is missing'}`)
    }
    if (input.wantRootsAt?.has(lo + local.size)) rootsAt.set(lo + local.size, local.root()!)
  }

  function checkSigned(leaf: LeafObject, sig: Uint8Array | null, leafHash: Buffer, seq: number, at: string): void {
    const fact = table.sessions.get(leaf.session_id)
    if (!fact?.publicKey || fact.certSeq > seq) return problem(`${at}: signed by session ${leaf.session_id}, which has no valid certificate before it`)
    if (fact.signer !== leaf.signer) return problem(`${at}: leaf claims signer ${leaf.signer}, session certificate says ${fact.signer}`)
    if (leaf.ts_ms > fact.notAfter) problem(`${at}: signed after session ${leaf.session_id} expired`)
    if (!sig || !input.verify(sig, leafSigMessage(leafHash), fact.publicKey)) return problem(`${at}: leaf signature does not verify`)
    lastSigned.set(leaf.session_id, leaf.ts_ms)
  }

  return { count: local.size, signed, unsigned, problems, problemCount, idleChecks, lastSigned, rootsAt, root: local.root() }
}
