/**
 * A gate check: read the call, decide it (or refuse it: unreadable, unknown or expired session, engine
 * failure), count the gates hit, and record the decision leaf; the verdict is returned only once the leaf
 * is durable. It never fails open: whatever goes wrong before the ledger is a deny that is still recorded.
 */
import { refuse } from '../decision.ts'
import type { CheckResult } from './contract.ts'
import { EngineError } from '../errors.ts'
import type { PayloadDigest } from '../hash.ts'
import { expiredSessionReason } from '../sessions/expired.ts'
import type { Session, SessionStatus } from '../sessions/store.ts'
import { gateKey } from '../state/state-db.ts'
import type { Decision, EvalRequest, LedgerDraft, ToolCall } from '../types.ts'
import { wellFormed } from '../well-formed.ts'
import { decideCall } from './decide.ts'
import { payloadDigestOf, unreadableCall, whileChecking } from './read-call.ts'
import { recordEntry } from './record.ts'
import type { EngineState } from './state.ts'

/** Decides `call` and records it durably; with `refusal` the call is not decided but denied for that reason, and recorded. */
export async function checkCall(state: EngineState, call: ToolCall, refusal?: string): Promise<CheckResult> {
  const now = Date.now()
  const status = state.sessions.status(call.sessionId, now)
  // Canonicalised once: the Unicode check, the leaf's payload_hash and the bytes observers store share it.
  const payload = payloadDigestOf(call)
  const unreadable = refusal ?? unreadableCall(call, payload)
  const { request, decision } = await whileChecking(call, payload, () => decideOrRefuse(state, call, status, unreadable, now))
  for (const hit of decision.hits) state.stateDb.recordHit(gateKey(hit.source, hit.gateId), now)
  const session = status.state === 'active' ? status.session : undefined
  const entry = await recordEntry(state, decisionDraft(state, call, decision, payload, session, now), session, decision, payload.bytes)
  const nudge = decision.verdict === 'deny' ? decision.nudge : undefined
  return { verdict: decision.verdict, rule_id: decision.ruleId, reason: decision.reason, ...(nudge ? { nudge } : {}), ledger_seq: entry.seq, decision, request }
}

/** The decision for a readable call of a live session; a refusal naming why for anything else, engine failures included. */
async function decideOrRefuse(
  state: EngineState,
  call: ToolCall,
  status: SessionStatus,
  unreadable: string | undefined,
  now: number,
): Promise<{ request: EvalRequest; decision: Decision }> {
  const request: EvalRequest = { ...call, paths: [], urls: [] }
  if (unreadable !== undefined) return { request, decision: refuse(unreadable) }
  if (status.state === 'unknown') return { request, decision: refuse(`unknown session "${call.sessionId}": mint one with \`svc session create\``) }
  if (status.state === 'expired') return { request, decision: refuse(expiredSessionReason(call.sessionId, status.session.signer)) }
  state.sessions.touch(call.sessionId, now)
  try {
    return await decideCall(state, call, status.session)
  } catch (err) {
    // Fail closed: an engine or plugin failure is a deny with its code, never an allow.
    const code = err instanceof EngineError ? err.code : 'PE_INTERNAL'
    state.log.error({ err }, 'decision failed; denying')
    return { request, decision: refuse(`policy engine error ${code}: ${(err as Error).message}`) }
  }
}

/** The decision leaf of `call`. The leaf is canonical JSON: only well-formed text goes in (an unreadable call was refused). */
function decisionDraft(state: EngineState, call: ToolCall, decision: Decision, payload: PayloadDigest, session: Session | undefined, now: number): LedgerDraft {
  return {
    kind: 'decision',
    sessionId: wellFormed(call.sessionId),
    signer: session?.signer ?? 'none',
    source: wellFormed(call.source),
    tool: wellFormed(call.tool),
    verdict: decision.ledgerVerdict,
    monitorMatch: decision.monitorMatch,
    ruleId: decision.ruleId,
    toolUseId: wellFormed(call.toolUseId ?? ''),
    ...(call.linkSeq === undefined ? {} : { linkSeq: call.linkSeq }),
    policyTrace: decision.trace,
    payloadHash: payload.hash,
    reason: wellFormed(decision.reason),
    ...(decision.stage === 'guardrail' ? { stage: 'guardrail' as const } : {}),
    at: now,
    policyHash: state.policy.hash,
    mode: state.mode,
  }
}
