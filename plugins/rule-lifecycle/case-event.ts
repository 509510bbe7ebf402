/**
 * The facts a false-positive case stands on, each checked with a clear refusal: the decision leaf at seq
 * (a deny or monitor alert with a matched rule), the matched gate still in the live policy, the exact call
 * (from the payload store, checked against the leaf's payload_hash), and the policy hash the case was made
 * under. Every failure is an ApiProblem carrying a stable `reason`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { ApiProblem, canonicalSha256, sha256, type CallPayload, type CompiledGate, type Engine, type PolicyFile } from '../../core/index.ts'
import type { PayloadStore } from './payload-store.ts'

/** The ledger leaf fields a case needs (wire names). */
export interface CaseLeaf {
  readonly seq: number
  readonly type: string
  readonly ts_ms: number
  readonly source: string
  readonly tool: string
  readonly verdict: string
  readonly monitor_match: boolean
  readonly rule_id: string
  readonly tool_use_id: string
  readonly policy_trace: readonly { layer: string; source: string; verdict: string; rule_id?: string }[]
  readonly payload_hash: string
  readonly prev_leaf_hash: string
}

export interface CaseEvent {
  readonly leaf: CaseLeaf
  readonly leafHash: string
  readonly payload: CallPayload
  readonly gate: CompiledGate
  /** The repo policy file of the event's cwd (present or not), when the cwd is inside a repository. */
  readonly repo?: PolicyFile
}

/** A refusal with a stable machine `reason` beside the problem code. */
export function refusal(status: number, reason: string, detail: string, extra: Record<string, unknown> = {}): ApiProblem {
  const code =
    status === 404
      ? 'not_found'
      : status === 409
        ? reason === 'stale_policy'
          ? 'stale_policy'
          : 'conflict'
        : status === 410
          ? 'gone'
          : status === 403
            ? 'forbidden'
            : status === 503
              ? 'no_session'
              : 'unprocessable'
  return new ApiProblem(status, code, detail, { reason, ...extra })
}

/** Loads and checks the decision leaf at `seq` (refusing allow rows, outcome rows and rule-less rows). */
export function eligibleLeaf(engine: Engine, seq: number): { leaf: CaseLeaf; leafHash: string } {
  const stored = engine.ledger.leaf(seq)
  if (!stored) throw refusal(404, 'unknown_seq', `no ledger leaf at seq ${seq} (tree size ${engine.ledger.size()})`)
  const leaf = stored.leaf as unknown as CaseLeaf
  if (leaf.type === 'outcome')
    throw refusal(
      422,
      'outcome_row',
      `seq ${seq} is an outcome row (${leaf.verdict}) after a tool ran, not a decision; use the seq of its decision${'parent_seq' in leaf ? ` (${String((leaf as { parent_seq?: number }).parent_seq)})` : ''}`,
    )
  if (leaf.type !== 'decision') throw refusal(422, 'not_a_decision', `seq ${seq} is a ${leaf.type} entry (${leaf.verdict}), not a decision`)
  if (leaf.verdict !== 'deny' && leaf.verdict !== 'monitor_alert')
    throw refusal(422, 'not_denied', `seq ${seq} was ${leaf.verdict === 'allow' ? 'allowed' : leaf.verdict}: only a deny or a monitor alert can be a false positive`)
  if (!leaf.rule_id) throw refusal(422, 'no_rule', `seq ${seq} has no matched rule (a core refusal or a guardrail verdict); there is no gate to replace`)
  return { leaf, leafHash: stored.leafHash.toString('hex') }
}

/** The matched gate as the live policy holds it now (static layers, then the repo file of the event's cwd). */
export function liveGate(engine: Engine, leaf: CaseLeaf, cwd: string | null, now: number): { gate: CompiledGate; repo?: PolicyFile } {
  const repo = engine.policy.repoPolicy(cwd ?? undefined, now)
  const traced = leaf.policy_trace.find((t) => t.rule_id === leaf.rule_id)
  const candidates = [...engine.policy.allGates(), ...(repo?.good?.gates ?? [])].filter((g) => g.id === leaf.rule_id && g.node !== undefined)
  const gate = candidates.find((g) => !traced || g.source === traced.source) ?? candidates[0]
  if (!gate) throw refusal(409, 'rule_not_live', `gate "${leaf.rule_id}" that matched seq ${leaf.seq} is no longer in the live policy`)
  return { gate, ...(repo ? { repo } : {}) }
}

/** The stored exact call of the leaf, checked against its payload_hash; 410 once retention dropped it. */
export function storedPayload(payloads: PayloadStore, leaf: CaseLeaf): CallPayload {
  const stored = payloads.get(leaf.seq)
  if (!stored)
    throw refusal(410, 'payload_expired', `the call behind seq ${leaf.seq} is no longer stored (payload retention; only its hash ${leaf.payload_hash.slice(0, 16)}… remains)`)
  if (sha256(stored.body) !== leaf.payload_hash)
    throw refusal(409, 'payload_mismatch', `the stored call of seq ${leaf.seq} does not match the leaf's payload_hash; run \`svc ledger verify\``)
  return JSON.parse(stored.body) as CallPayload
}

/** Everything a case needs, checked. */
export function caseEvent(engine: Engine, payloads: PayloadStore, seq: number, now = Date.now()): CaseEvent {
  const { leaf, leafHash } = eligibleLeaf(engine, seq)
  const payload = storedPayload(payloads, leaf)
  engine.policy.reloadNow(payload.cwd ?? undefined, now)
  const { gate, repo } = liveGate(engine, leaf, payload.cwd, now)
  return { leaf, leafHash, payload, gate, ...(repo ? { repo } : {}) }
}

/**
 * The policy hash a case is made under: the static layers' hash and the exact bytes of the repo file of the
 * event's cwd, so an edit to either makes a bundle stale.
 */
export function casePolicyHash(engine: Engine, repo: PolicyFile | undefined): string {
  const path = repo?.src.path
  const bytes = !path || !existsSync(path) ? null : statSync(path).isFile() ? sha256(readFileSync(path, 'utf8')) : 'not a regular file'
  return canonicalSha256({ policy: engine.policy.hash, repo: path ? { path, sha256: bytes } : null })
}
