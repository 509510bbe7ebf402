/**
 * What a ledger leaf commits to: the spec's entry fields (seq, signer, source, tool, verdict, monitor_match,
 * rule_id, tool_use_id, policy_trace, payload hash, previous leaf hash) plus the session id, and for session
 * events the session certificate. The session key signs `"svc/leaf-sig/v1\n" ‖ leaf_hash`.
 */
import type { LayerTrace, LedgerDraft, LedgerEntry, LedgerVerdict, SignerKind } from '../types.ts'
import type { SessionCertificate } from '../trust/session-cert.ts'

/** Domain separation for leaf signatures: a session key's leaf signature can never pass as another message. */
export const LEAF_SIG_PREFIX = Buffer.from('svc/leaf-sig/v1\n', 'utf8')

/** Leaf hash of "no previous leaf" (seq 0): 32 zero bytes, hex. */
export const GENESIS_PREV = '0'.repeat(64)

/** A draft as the ledger accepts it: the core's draft, optionally carrying a session certificate. */
export type LeafDraft = LedgerDraft & { readonly certificate?: SessionCertificate }

/** The JSON object whose JCS bytes are the leaf (wire names, snake_case). */
export interface LeafObject {
  readonly v: 1
  readonly type: LedgerDraft['kind']
  readonly seq: number
  readonly ts_ms: number
  readonly session_id: string
  readonly signer: SignerKind | 'none'
  readonly source: string
  readonly tool: string
  readonly verdict: LedgerVerdict
  readonly monitor_match: boolean
  readonly rule_id: string
  readonly tool_use_id: string
  readonly policy_trace: readonly LayerTrace[]
  readonly payload_hash: string
  readonly prev_leaf_hash: string
  readonly reason: string
  readonly parent_seq?: number
  /** Present only when a guardrail decided (absent: local policy or the core did). */
  readonly stage?: 'guardrail'
  readonly certificate?: SessionCertificate
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
    ...(draft.stage === undefined ? {} : { stage: draft.stage }),
    ...(draft.certificate === undefined ? {} : { certificate: draft.certificate }),
  }
}

/** Bytes the session key signs for a leaf. */
export function leafSigMessage(leafHash: Uint8Array): Buffer {
  return Buffer.concat([LEAF_SIG_PREFIX, leafHash])
}

/** Maps a stored leaf object back to the core's entry shape. */
export function entryFromLeaf(leaf: LeafObject, leafHash: Buffer, sig: Buffer | null): LedgerEntry {
  return {
    kind: leaf.type,
    sessionId: leaf.session_id,
    signer: leaf.signer,
    source: leaf.source,
    tool: leaf.tool,
    verdict: leaf.verdict,
    monitorMatch: leaf.monitor_match,
    ruleId: leaf.rule_id,
    toolUseId: leaf.tool_use_id,
    policyTrace: leaf.policy_trace,
    payloadHash: leaf.payload_hash,
    reason: leaf.reason,
    ...(leaf.parent_seq === undefined ? {} : { parentSeq: leaf.parent_seq }),
    ...(leaf.stage === undefined ? {} : { stage: leaf.stage }),
    at: leaf.ts_ms,
    seq: leaf.seq,
    leafHash: leafHash.toString('hex'),
    prevLeafHash: leaf.prev_leaf_hash,
    ...(sig ? { signature: sig.toString('base64') } : {}),
  }
}
