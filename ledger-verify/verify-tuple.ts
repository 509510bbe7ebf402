/**
 * Stateless verification of one (leaf, seq, proof, root) tuple, as `POST /v1/ledger/verify` answers it:
 * the leaf bytes must be canonical JCS naming that seq, the audit path must lead to the root, and when a
 * signature and session key are supplied the signature must verify. Never throws on malformed input.
 */
import type { SignatureVerifier } from '../core/ledger/ed25519.ts'
import { canonicalJson } from '../core/ledger/jcs.ts'
import { leafSigMessage } from '../core/ledger/leaf.ts'
import { hashLeaf } from '../core/ledger/merkle.ts'
import { verifyInclusion } from './proof-verify.ts'

/** The tuple, with byte strings in standard base64. */
export interface VerifyTuple {
  readonly leaf: string
  readonly seq: number
  readonly tree_size: number
  readonly proof: readonly string[]
  readonly root: string
  readonly leaf_sig?: string
  readonly session_public_key?: string
}

export type CheckResult = 'ok' | 'skipped' | `fail: ${string}`

export interface VerifyTupleResult {
  readonly valid: boolean
  readonly reason?: string
  readonly leaf_hash?: string
  readonly checks: { readonly leaf: CheckResult; readonly inclusion: CheckResult; readonly signature: CheckResult }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

function decode(value: string): Buffer | undefined {
  return BASE64.test(value) ? Buffer.from(value, 'base64') : undefined
}

/** Checks the tuple; `valid` is true only when every applicable check passed. */
export function verifyTuple(tuple: VerifyTuple, verify: SignatureVerifier): VerifyTupleResult {
  const body = decode(tuple.leaf)
  if (!body) return failed('leaf is not standard base64', { leaf: 'fail: not base64', inclusion: 'skipped', signature: 'skipped' })
  const leafHash = hashLeaf(body)
  let leafCheck: CheckResult = 'ok'
  try {
    const text = body.toString('utf8')
    const parsed = JSON.parse(text) as { seq?: unknown }
    if (canonicalJson(parsed) !== text) leafCheck = 'fail: leaf bytes are not canonical JCS'
    else if (parsed.seq !== tuple.seq) leafCheck = `fail: leaf names seq ${String(parsed.seq)}, tuple says ${tuple.seq}`
  } catch {
    leafCheck = 'fail: leaf is not JSON'
  }
  const proof = tuple.proof.map(decode)
  const root = decode(tuple.root)
  let inclusion: CheckResult
  if (!root || proof.some((p) => p === undefined)) inclusion = 'fail: proof or root is not standard base64'
  else {
    const r = verifyInclusion(tuple.seq, tuple.tree_size, leafHash, proof as Buffer[], root)
    inclusion = r.ok ? 'ok' : `fail: ${r.reason}`
  }
  let signature: CheckResult = 'skipped'
  if (tuple.leaf_sig !== undefined || tuple.session_public_key !== undefined) {
    const sig = tuple.leaf_sig === undefined ? undefined : decode(tuple.leaf_sig)
    const key = tuple.session_public_key === undefined ? undefined : decode(tuple.session_public_key)
    if (!sig || !key) signature = 'fail: both leaf_sig and session_public_key are needed, in base64'
    else signature = verify(sig, leafSigMessage(leafHash), key) ? 'ok' : 'fail: signature does not verify'
  }
  const checks = { leaf: leafCheck, inclusion, signature }
  const firstFailure = Object.entries(checks).find(([, v]) => v.startsWith('fail'))
  const leaf_hash = leafHash.toString('base64')
  return firstFailure ? { valid: false, reason: `${firstFailure[0]}: ${firstFailure[1].slice('fail: '.length)}`, leaf_hash, checks } : { valid: true, leaf_hash, checks }
}

function failed(reason: string, checks: VerifyTupleResult['checks']): VerifyTupleResult {
  return { valid: false, reason, checks }
}
