/**
 * Replay of a validated replacement over recorded decisions: the newest stored calls (payloads.db) are decided
 * again by the local gates under the live policy and under the candidate (the replaced gate disabled, the
 * replacement added where the target file applies), without recording and without guardrails. What changes
 * is listed: past denies the replacement would now allow, and past allows it would now deny.
 */
import { combine, evaluateNode, type CallPayload, type CompiledNode, type Engine, type EvalContext, type EvalRequest, type GateHit } from '../../core/index.ts'
import { redactedSummary } from './bundle.ts'
import type { PayloadStore } from './payload-store.ts'
import type { Validated } from './validate.ts'

export const DEFAULT_REPLAY_LIMIT = 500
export const MAX_REPLAY_LIMIT = 5000

export interface ReplayedCall {
  readonly seq: number
  readonly tool: string
  readonly recorded: string
  readonly now: string
  readonly candidate: string
  readonly rule_id?: string
  readonly input: Record<string, unknown>
  readonly redacted: boolean
}

export interface Replay {
  readonly replayed: number
  readonly skipped: number
  readonly now_allowed: readonly ReplayedCall[]
  readonly now_denied: readonly ReplayedCall[]
}

/** Re-decides the newest `limit` stored decision calls under the live policy and under the candidate of `v`. */
export async function replayCase(engine: Engine, payloads: PayloadStore, v: Validated, limit = DEFAULT_REPLAY_LIMIT): Promise<Replay> {
  const ctx = engine.evalContext()
  const nowAllowed: ReplayedCall[] = []
  const nowDenied: ReplayedCall[] = []
  let replayed = 0
  let skipped = 0
  for (const stored of payloads.recent(limit)) {
    const leaf = engine.ledger.leaf(stored.seq)?.leaf
    if (leaf?.type !== 'decision' || leaf.payload_hash !== stored.payloadHash) {
      skipped++
      continue
    }
    const call = JSON.parse(stored.body) as CallPayload
    const request = await engine.hooks.preEvaluate.promise(
      { sessionId: 'replay', source: leaf.source, tool: call.tool, input: call.input, ...(call.cwd ? { cwd: call.cwd } : {}), paths: [], urls: [] },
      ctx,
    )
    // A call the analyser could not read in full is refused alike before and after: the replacement cannot change it.
    if (request.shell?.error || request.uncovered) {
      skipped++
      continue
    }
    replayed++
    const applies = v.target.layer !== 'repo' || engine.policy.repoPolicy(call.cwd ?? undefined, ctx.now)?.src.path === v.target.path
    const hits: GateHit[] = []
    for (const { layer, gates, exclude } of engine.policy.gatesFor(request, ctx)) {
      for (const gate of gates) {
        if (exclude?.has(gate.id) || gate.evaluators.length > 0) continue
        const matched = evaluateGate(gate.node, request, ctx)
        if (matched !== undefined) hits.push({ gateId: gate.id, layer, source: gate.source, onHit: gate.onHit, requireStrong: gate.requireStrong, reason: matched })
      }
    }
    const candidateHits = applies ? hits.filter((h) => !(h.gateId === v.c.gate.id && h.source === v.c.gate.source)) : hits
    const replacementMatch = applies ? evaluateGate(v.replacement.gate.node, request, ctx) : undefined
    const r = v.replacement.gate
    if (replacementMatch !== undefined)
      candidateHits.push({ gateId: r.id, layer: v.target.layer, source: v.target.source, onHit: r.onHit, requireStrong: r.requireStrong, reason: replacementMatch })
    const now = combine(hits, engine.mode(), undefined)
    const candidate = combine(candidateHits, engine.mode(), undefined)
    if (now.ledgerVerdict === candidate.ledgerVerdict) continue
    const summary = redactedSummary(call, ctx.home)
    const row: ReplayedCall = {
      seq: stored.seq,
      tool: call.tool,
      recorded: String(leaf.verdict),
      now: now.ledgerVerdict,
      candidate: candidate.ledgerVerdict,
      ...(now.ruleId ? { rule_id: now.ruleId } : {}),
      input: summary.input,
      redacted: summary.changes.length > 0,
    }
    if (candidate.ledgerVerdict === 'allow') nowAllowed.push(row)
    else if (now.ledgerVerdict === 'allow') nowDenied.push(row)
  }
  return { replayed, skipped, now_allowed: nowAllowed, now_denied: nowDenied }
}

function evaluateGate(node: CompiledNode | undefined, request: EvalRequest, ctx: EvalContext): string | undefined {
  return node === undefined ? undefined : evaluateNode(node, request, ctx)
}
