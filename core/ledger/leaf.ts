/**
 * What a ledger leaf commits to: the spec's entry fields (seq, signer, source, tool, verdict, monitor_match,
 * rule_id, tool_use_id, policy_trace, payload hash, previous leaf hash) plus the session id, and for session
 * events the session certificate. The session key signs `"svc/leaf-sig/v1\n" ‖ leaf_hash`.
 */
import { signNative, type SigningKey } from './ed25519.ts'
import type { LayerTrace, LedgerDraft, LedgerEntry, LedgerVerdict, Mode, SessionCertificate, SignerKind } from '../types.ts'

/** Domain separation for leaf signatures: a session key's leaf signature can never pass as another message. */
export const LEAF_SIG_PREFIX = Buffer.from('svc/leaf-sig/v1\n', 'utf8')

/** Leaf hash of "no previous leaf" (seq 0): 32 zero bytes, hex. */
export const GENESIS_PREV = '0'.repeat(64)

/** A draft as the ledger accepts it: the core's draft, optionally carrying a session certificate. */
export type LeafDraft = LedgerDraft & { readonly certificate?: SessionCertificate }

/** Leaves the ledger writes about itself: a new ledger (naming what it replaced) and each daemon start. */
export type LedgerEventVerdict = 'ledger_created' | 'ledger_opened'

/** What a new ledger replaced: the previous origin and its last signed checkpoint, when one is known. */
export interface ReplacedLedger {
  readonly origin: string
  readonly tree_size: number | null
  readonly root: string | null
}

/** The JSON object whose JCS bytes are the leaf (wire names, snake_case). */
export interface LeafObject {
  readonly v: 1
  readonly type: LedgerDraft['kind'] | 'ledger'
  readonly seq: number
  readonly ts_ms: number
  readonly session_id: string
  readonly signer: SignerKind | 'none'
  readonly source: string
  readonly tool: string
  readonly verdict: LedgerVerdict | LedgerEventVerdict
  readonly monitor_match: boolean
  readonly rule_id: string
  readonly tool_use_id: string
  readonly policy_trace: readonly LayerTrace[]
  readonly payload_hash: string
  readonly prev_leaf_hash: string
  readonly reason: string
  readonly parent_seq?: number
  /** A decision of the same call at another enforcement point (hook and MCP proxy): the other decision's seq. */
  readonly link_seq?: number
  /** Present only when a guardrail decided (absent: local policy or the core did). */
  readonly stage?: 'guardrail'
  readonly certificate?: SessionCertificate
  readonly policy_hash?: string
  readonly mode?: Mode
  readonly facts?: Readonly<Record<string, string>>
  readonly replaces?: ReplacedLedger
}

/** A leaf the ledger writes about itself (unsigned: it allows nothing and no session stands behind it). */
export function ledgerEventLeaf(verdict: LedgerEventVerdict, seq: number, prevLeafHash: string, reason: string, replaces?: ReplacedLedger): LeafObject {
  return {
    v: 1,
    type: 'ledger',
    seq,
    ts_ms: Date.now(),
    session_id: '',
    signer: 'none',
    source: 'svc',
    tool: '',
    verdict,
    monitor_match: false,
    rule_id: '',
    tool_use_id: '',
    policy_trace: [],
    payload_hash: '',
    prev_leaf_hash: prevLeafHash,
    reason,
    ...(replaces ? { replaces } : {}),
  }
}

/** Builds the leaf object for `draft` at `seq`, chained to the previous leaf hash (hex). */
export function leafObject(draft: LeafDraft, seq: number, prevLeafHash: string): LeafObject {
  return {
    v: 1,
    type: draft.kind,
    seq,
    ts_ms: Math.trunc(draft.at),
    session_id: draft.sessionId,
    signer: draft.signer,
    source: draft.source,
    tool: draft.tool,
    verdict: draft.verdict,
    monitor_match: draft.monitorMatch,
    rule_id: draft.ruleId,
    tool_use_id: draft.toolUseId,
    policy_trace: draft.policyTrace.map((t) => ({ ...t })),
    payload_hash: draft.payloadHash,
    prev_leaf_hash: prevLeafHash,
    reason: draft.reason,
    ...(draft.parentSeq === undefined ? {} : { parent_seq: draft.parentSeq }),
    ...(draft.linkSeq === undefined ? {} : { link_seq: draft.linkSeq }),
    ...(draft.stage === undefined ? {} : { stage: draft.stage }),
    ...(draft.certificate === undefined ? {} : { certificate: draft.certificate }),
    ...(draft.policyHash === undefined ? {} : { policy_hash: draft.policyHash }),
    ...(draft.mode === undefined ? {} : { mode: draft.mode }),
    ...(draft.facts === undefined ? {} : { facts: { ...draft.facts } }),
  }
}

/** Bytes the session key signs for a leaf. */
export function leafSigMessage(leafHash: Uint8Array): Buffer {
  return Buffer.concat([LEAF_SIG_PREFIX, leafHash])
}

/** Maps a stored leaf object back to the core's entry shape. */
export function entryFromLeaf(leaf: LeafObject, leafHash: Buffer, sig: Buffer | null): LedgerEntry {
  return {
    // A ledger event leaf keeps its own type and verdict; the core never appends one, it only reads them.
    kind: leaf.type as LedgerEntry['kind'],
    sessionId: leaf.session_id,
    signer: leaf.signer,
    source: leaf.source,
    tool: leaf.tool,
    verdict: leaf.verdict as LedgerEntry['verdict'],
    monitorMatch: leaf.monitor_match,
    ruleId: leaf.rule_id,
    toolUseId: leaf.tool_use_id,
    policyTrace: leaf.policy_trace,
    payloadHash: leaf.payload_hash,
    reason: leaf.reason,
    ...(leaf.parent_seq === undefined ? {} : { parentSeq: leaf.parent_seq }),
    ...(leaf.link_seq === undefined ? {} : { linkSeq: leaf.link_seq }),
    ...(leaf.stage === undefined ? {} : { stage: leaf.stage }),
    ...(leaf.policy_hash === undefined ? {} : { policyHash: leaf.policy_hash }),
    ...(leaf.mode === undefined ? {} : { mode: leaf.mode }),
    ...(leaf.facts === undefined ? {} : { facts: leaf.facts }),
    at: leaf.ts_ms,
    seq: leaf.seq,
    leafHash: leafHash.toString('hex'),
    prevLeafHash: leaf.prev_leaf_hash,
    ...(sig ? { signature: sig.toString('base64') } : {}),
  }
}

/**
 * Signs a leaf for its session: returns the Ed25519 signature over `"svc/leaf-sig/v1\n" ‖ leafHash`
 * (see `leafSigMessage`). Throws (EngineError SESSION_INVALID) when the session can no longer sign.
 */
export type LeafSigner = (leafHash: Buffer) => Buffer

/** Builds the leaf signer of an in-memory session key (native Ed25519, the hot path). */
export function leafSignerFor(key: SigningKey): LeafSigner {
  return (leafHash) => signNative(key, leafSigMessage(leafHash))
}
