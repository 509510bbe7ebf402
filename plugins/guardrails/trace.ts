/**
 * The multi-stage trace of one decision (`GET /v1/guardrails/traces/{seq}`): the local policy verdict,
 * the guardrail verdict with one row per evaluator, and the final verdict, kept apart. A trace holds
 * no payload text and no credential: only verdicts, categories, latencies and reasons.
 */
import type { Decision, GuardrailStage, GuardrailVerdict, LedgerEntry } from '../../core/index.ts'

export interface EvaluatorTrace {
  readonly gate_id: string
  readonly provider: string
  readonly model: string
  readonly effect: GuardrailVerdict['effect']
  readonly reason: string
  readonly categories: Readonly<Record<string, { severity: string; raw: boolean }>>
  readonly matched: readonly string[]
  readonly latency_ms: number
  readonly cached: boolean
  readonly abstained: boolean
  readonly abstain_kind?: string
  /** Why the evaluator abstained (absent when it did not). */
  readonly why?: string
}

export interface StageView {
  readonly verdict: string
  readonly ledger_verdict: string
  readonly rule_id: string
  readonly reason: string
}

export interface GuardrailTrace {
  readonly seq: number
  readonly at: number
  readonly source: string
  readonly tool: string
  readonly local: StageView
  readonly guardrail: {
    /** `not_run`: no guardrail gate matched, or local policy denied (guardrails never run after a local deny). */
    readonly verdict: GuardrailStage['verdict'] | 'not_run'
    readonly ran: boolean
    readonly enabled: boolean
    readonly why?: string
    readonly evaluators: readonly EvaluatorTrace[]
  }
  readonly final: StageView & { readonly decided_by: 'local' | 'guardrail' | 'core' }
}

function evaluatorTrace(v: GuardrailVerdict): EvaluatorTrace {
  return {
    gate_id: v.gateId,
    provider: v.provider,
    model: v.model,
    effect: v.effect,
    reason: v.reason,
    categories: v.categories ?? {},
    matched: v.matched ?? [],
    latency_ms: v.latencyMs,
    cached: v.cached,
    abstained: v.effect === 'abstain',
    ...(v.abstained ? { abstain_kind: v.abstained.kind, why: v.abstained.detail } : {}),
  }
}

/** The trace of a decision whose guardrail stage ran (or was switched off). */
export function traceOf(entry: LedgerEntry, decision: Decision & { guardrail: GuardrailStage }): GuardrailTrace {
  const g = decision.guardrail
  return {
    seq: entry.seq,
    at: entry.at,
    source: entry.source,
    tool: entry.tool,
    local: { verdict: g.local.verdict, ledger_verdict: g.local.ledgerVerdict, rule_id: g.local.ruleId, reason: g.local.reason },
    guardrail: {
      verdict: g.verdict,
      ran: g.enabled,
      enabled: g.enabled,
      ...(g.enabled ? {} : { why: 'guardrails are switched off (PUT /v1/guardrails/enabled)' }),
      evaluators: g.evaluators.map(evaluatorTrace),
    },
    final: { verdict: decision.verdict, ledger_verdict: decision.ledgerVerdict, rule_id: decision.ruleId, reason: decision.reason, decided_by: decision.stage },
  }
}

/**
 * The trace of a decision with no stored guardrail trace, rebuilt from its ledger leaf: no guardrail took
 * part (local = final), or, if the leaf says a guardrail decided, its per-evaluator rows were not recorded.
 */
export function localOnlyTrace(entry: LedgerEntry, enabled: boolean): GuardrailTrace {
  const verdict = entry.verdict === 'deny' ? 'deny' : 'allow'
  const final = { verdict, ledger_verdict: entry.verdict, rule_id: entry.ruleId, reason: entry.reason }
  const base = { seq: entry.seq, at: entry.at, source: entry.source, tool: entry.tool }
  if (entry.stage === 'guardrail') {
    return {
      ...base,
      local: { verdict: 'allow', ledger_verdict: 'allow', rule_id: '', reason: 'allowed by local policy (details not recorded)' },
      guardrail: { verdict: entry.verdict === 'deny' ? 'deny' : 'monitor', ran: true, enabled, why: 'the per-evaluator trace was not recorded', evaluators: [] },
      final: { ...final, decided_by: 'guardrail' },
    }
  }
  const localDeny = entry.verdict === 'deny' || (entry.verdict === 'monitor_alert' && entry.ruleId !== '')
  return {
    ...base,
    local: final,
    guardrail: {
      verdict: 'not_run',
      ran: false,
      enabled,
      why: localDeny ? 'local policy did not allow the call; guardrails run only after a local allow' : 'no guardrail gate matched the call',
      evaluators: [],
    },
    final: { ...final, decided_by: entry.ruleId === '' && entry.verdict === 'deny' ? 'core' : 'local' },
  }
}
