/**
 * Whole-ledger offline verification (`svc ledger verify`): every leaf's bytes are canonical JCS at the right
 * seq and chained to the previous leaf hash; every session certificate is signed by a trusted host key of the
 * same signer kind; every signed leaf verifies under its session key within the session's validity; the
 * recomputed tree matches every stored checkpoint, whose notes must verify under the session key named.
 * Touches no state; needs only SHA-256 and Ed25519.
 */
import type { SignerKind } from '../types.ts'
import { checkSessionCertificate, type SessionCertificate } from '../trust/session-cert.ts'
import { CompactRange } from './compact-range.ts'
import type { SignatureVerifier } from './ed25519.ts'
import { canonicalJson } from './jcs.ts'
import { GENESIS_PREV, leafSigMessage, type LeafObject } from './leaf.ts'
import { EMPTY_ROOT, hashLeaf } from './merkle.ts'
import { checkpointText, noteVerifierKey, verifyNote } from './signed-note.ts'

/** A host public key the verifier trusts, with the signer kind it may certify. */
export interface TrustedHostKey {
  readonly public_key: string
  readonly signer: SignerKind
  /** A retired key still verifies certificates issued before its retirement, and none after. */
  readonly retired_at_ms?: number
}

/** One leaf as exported or stored. */
export interface LeafRecord {
  readonly seq: number
  readonly body: string
  readonly sig: Uint8Array | null
  readonly leafHash?: Uint8Array
}

/** A stored checkpoint to check against the recomputed tree. */
export interface CheckpointRecord {
  readonly treeSize: number
  readonly root: Uint8Array
  readonly note: string
  readonly signerKid: string
}

export interface LedgerVerifyReport {
  readonly ok: boolean
  readonly treeSize: number
  readonly root: string
  readonly counts: { readonly signed: number; readonly unsigned: number; readonly sessions: number; readonly checkpoints: number }
  /** First problems found (at most 50), each naming the seq or checkpoint. */
  readonly problems: readonly string[]
  readonly problemCount: number
}

const MAX_REPORTED = 50

interface KnownSession {
  readonly signer: SignerKind
  readonly publicKey?: Buffer
  readonly notAfter: number
}

/** Verifies a complete ledger given its leaves in seq order and its checkpoints. */
export function verifyLedger(input: {
  readonly leaves: Iterable<LeafRecord>
  readonly checkpoints?: readonly CheckpointRecord[]
  readonly origin?: string
  readonly trustedHostKeys: readonly TrustedHostKey[]
  readonly verify: SignatureVerifier
  /** When given (fsck of a database), every stored perfect-subtree hash is compared with the recomputed one. */
  readonly storedNode?: (level: number, idx: number) => Buffer | undefined
}): LedgerVerifyReport {
  const problems: string[] = []
  let problemCount = 0
  const problem = (text: string): void => {
    problemCount++
    if (problems.length < MAX_REPORTED) problems.push(text)
  }
  const trusted = new Map(input.trustedHostKeys.map((k) => [k.public_key, k]))
  const sessions = new Map<string, KnownSession>()
  const checkpoints = [...(input.checkpoints ?? [])].sort((a, b) => a.treeSize - b.treeSize)
  const rootsAt = new Map<number, Buffer>()
  const wantedSizes = new Set(checkpoints.map((c) => c.treeSize))
  const range = new CompactRange()
  let prev = GENESIS_PREV
  let signed = 0
  let unsigned = 0

  for (const record of input.leaves) {
    const at = `seq ${range.size}`
    const leafHash = hashLeaf(Buffer.from(record.body, 'utf8'))
    let leaf: LeafObject | undefined
    try {
      leaf = JSON.parse(record.body) as LeafObject
      if (canonicalJson(leaf) !== record.body) problem(`${at}: leaf bytes are not canonical JCS`)
    } catch {
      problem(`${at}: leaf is not JSON`)
    }
    if (record.seq !== range.size) problem(`${at}: stored as seq ${record.seq} (gap or reordering)`)
    if (record.leafHash && !leafHash.equals(record.leafHash)) problem(`${at}: stored leaf hash does not match the leaf bytes`)
    if (leaf) {
      if (leaf.seq !== range.size) problem(`${at}: leaf names seq ${leaf.seq}`)
      if (leaf.prev_leaf_hash !== prev) problem(`${at}: prev_leaf_hash does not chain to the previous leaf`)
      if (leaf.type === 'session' && leaf.certificate) admitSession(leaf, leaf.certificate, at)
      checkSignature(leaf, record.sig, leafHash, at)
    }
    prev = leafHash.toString('hex')
    for (const node of range.append(leafHash)) {
      if (!input.storedNode) break
      const stored = input.storedNode(node.level, node.idx)
      if (!stored?.equals(node.hash)) problem(`stored node (${node.level}, ${node.idx}) ${stored ? 'differs from the recomputed hash' : 'is missing'}`)
    }
    if (wantedSizes.has(range.size)) rootsAt.set(range.size, range.root()!)
  }

  function admitSession(leaf: LeafObject, cert: SessionCertificate, at: string): void {
    const b = cert.bundle
    if (b.session_id !== leaf.session_id) return problem(`${at}: certificate is for session ${b.session_id}, leaf names ${leaf.session_id}`)
    const reason = checkSessionCertificate(cert, input.verify)
    if (reason) return problem(`${at}: session certificate of ${b.session_id}: ${reason}`)
    if (b.signer !== 'unattested') {
      const key = trusted.get(b.host_public_key!)
      if (key === undefined) return problem(`${at}: session ${b.session_id} is certified by an untrusted host key`)
      if (key.signer !== b.signer) return problem(`${at}: host key is trusted for ${key.signer}, certificate claims ${b.signer}`)
      if (key.retired_at_ms !== undefined && b.issued_at_ms > key.retired_at_ms) return problem(`${at}: session ${b.session_id} was certified after its host key was retired`)
    }
    sessions.set(b.session_id, {
      signer: b.signer,
      notAfter: b.expires_at_ms,
      ...(b.session_public_key ? { publicKey: Buffer.from(b.session_public_key, 'base64') } : {}),
    })
  }

  function checkSignature(leaf: LeafObject, sig: Uint8Array | null, leafHash: Buffer, at: string): void {
    const session = sessions.get(leaf.session_id)
    if (leaf.signer === 'unattested' || leaf.signer === 'none') {
      unsigned++
      if (sig) problem(`${at}: ${leaf.signer} leaf carries a signature`)
      if (leaf.signer === 'unattested' && session && session.signer !== 'unattested') problem(`${at}: leaf claims unattested, session is ${session.signer}`)
      return
    }
    signed++
    if (!session?.publicKey) return problem(`${at}: signed by session ${leaf.session_id}, which has no valid certificate before it`)
    if (session.signer !== leaf.signer) return problem(`${at}: leaf claims signer ${leaf.signer}, session certificate says ${session.signer}`)
    if (leaf.ts_ms > session.notAfter) problem(`${at}: signed after session ${leaf.session_id} expired`)
    if (!sig || !input.verify(sig, leafSigMessage(leafHash), session.publicKey)) problem(`${at}: leaf signature does not verify`)
  }

  for (const c of checkpoints) {
    const where = `checkpoint at size ${c.treeSize}`
    const root = c.treeSize === 0 ? EMPTY_ROOT : rootsAt.get(c.treeSize)
    if (!root) {
      problem(`${where}: the ledger has only ${range.size} leaves (truncated?)`)
      continue
    }
    if (!root.equals(c.root)) problem(`${where}: recomputed root differs (history was rewritten)`)
    const session = sessions.get(c.signerKid)
    if (!session?.publicKey) {
      problem(`${where}: signed by unknown session ${c.signerKid}`)
      continue
    }
    const origin = input.origin ?? c.note.slice(0, c.note.indexOf('\n'))
    const checked = verifyNote(c.note, noteVerifierKey(origin, session.publicKey), input.verify)
    if (!checked.ok) problem(`${where}: note ${checked.reason}`)
    else if (checked.text !== checkpointText(origin, c.treeSize, c.root)) problem(`${where}: note text does not match the stored root`)
  }

  return {
    ok: problemCount === 0,
    treeSize: range.size,
    root: (range.root() ?? EMPTY_ROOT).toString('hex'),
    counts: { signed, unsigned, sessions: sessions.size, checkpoints: checkpoints.length },
    problems,
    problemCount,
  }
}
