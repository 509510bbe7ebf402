/**
 * One decision, without the ledger: preEvaluate → the gates of every layer → combine → postLocal →
 * guardrails (only after a local allow). `svc explain` runs exactly this, with a trace.
 */
import { combine, refuse, waive } from '../decision.ts'
import { runGuardrails } from '../guardrail/round.ts'
import { evaluateNode, type GateTrace, type NodeTrace } from '../policy/evaluate.ts'
import { indexOf } from '../policy/gate-index.ts'
import type { Session } from '../sessions/store.ts'
import type { Decision, EvalContext, EvalRequest, GateEvaluator, GateHit, ToolCall } from '../types.ts'
import type { EngineState } from './state.ts'

/** The context every gate sees for a call now: the only place it is built, so `svc explain` sees the daemon's. */
export function evalContext(state: EngineState, session?: Session): EvalContext {
  return { now: Date.now(), session, home: state.userHome, svcHome: state.home, policiesDir: state.policiesDir, svcPorts: state.svcPorts }
}

/**
 * Normalises `call` and decides it under `session`. With `trace`, every gate evaluated is appended there with
 * what each node of its `when` did.
 */
export async function decideCall(
  state: EngineState,
  call: ToolCall,
  session?: Session,
  trace?: GateTrace[],
  localOnly = false,
): Promise<{ request: EvalRequest; decision: Decision }> {
  const ctx = evalContext(state, session)
  const request = await state.hooks.preEvaluate.promise({ ...call, paths: [], urls: [] }, ctx)
  const gap = coverageGap(request)
  if (gap) {
    if (state.mode === 'firewall') return { request, decision: refuse(gap) }
    return { request, decision: { ...refuse(gap), verdict: 'allow', ledgerVerdict: 'monitor_alert', monitorMatch: true } }
  }
  const { hits, evaluators } = matchGates(state, request, ctx, trace)
  const local = combine(hits, state.mode, session?.signer)
  const refined = waive(local, await state.hooks.postLocal.promise(local, request, ctx), state.mode, session?.signer)
  // Guardrails only after a local allow: a local deny (even one monitor mode lets through) never reaches a provider.
  const localDeny = refined.verdict === 'deny' || refined.hits.some((h) => h.onHit === 'deny')
  if (localDeny || evaluators.length === 0 || localOnly) return { request, decision: refined }
  const decision = await runGuardrails({
    hooks: state.hooks,
    request,
    ctx,
    local: refined,
    evaluators,
    mode: state.mode,
    enabled: state.guardrailsEnabled,
    log: state.log.child({ part: 'guardrail' }),
  })
  return { request, decision }
}

/** Why the normalised call was not examined in full (a command over the analysis budget, input over the walk's bounds). */
function coverageGap(request: EvalRequest): string | undefined {
  if (request.shell?.error) return `command could not be analysed (${request.shell.error}); refusing to guess what it runs`
  if (request.uncovered) return `tool input could not be examined in full (${request.uncovered}); refusing to guess what it touches`
  return undefined
}

/** The gates of every layer that match `request`: local hits, and the guardrail evaluators of matching guardrail gates. */
function matchGates(state: EngineState, request: EvalRequest, ctx: EvalContext, trace?: GateTrace[]): { hits: GateHit[]; evaluators: GateEvaluator[] } {
  const hits: GateHit[] = []
  const evaluators: GateEvaluator[] = []
  for (const { layer, gates, exclude } of state.policy.gatesFor(request, ctx)) {
    // Only the gates that can match run; a trace (svc explain) runs and shows every gate.
    for (const gate of trace ? gates : indexOf(gates).candidates(request)) {
      if (exclude?.has(gate.id)) continue
      const nodes: NodeTrace[] | undefined = trace ? [] : undefined
      const matched = evaluateNode(gate.node!, request, ctx, nodes)
      if (nodes) trace!.push({ layer, gate, ...(matched !== undefined ? { matched } : {}), node: nodes[0]! })
      if (matched === undefined) continue
      // A guardrail gate is not a local hit: its match only selects the calls its evaluators classify.
      if (gate.evaluators.length > 0) {
        for (const evaluator of gate.evaluators) evaluators.push({ gateId: gate.id, layer, source: gate.source, index: evaluators.length, evaluator })
        continue
      }
      hits.push({
        gateId: gate.id,
        layer,
        source: gate.source,
        onHit: gate.onHit,
        requireStrong: gate.requireStrong,
        nudge: gate.nudge,
        reason: gate.description ?? `matched ${matched}`,
      })
    }
  }
  return { hits, evaluators }
}
