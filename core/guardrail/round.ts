/**
 * One guardrail round: after a local allow, the evaluators of every matched guardrail gate are offered to
 * the provider taps of the `guardrail` hook. Taps record a verdict per evaluator they ran and return only a
 * deny (which stops the hook). Whatever no tap ran, or what a failing tap left, is an abstention; the
 * round then yields the guardrail stage and the final decision, kept apart from the local one.
 */
import type { Logger } from 'pino'
import type { EngineHooks } from '../hooks.ts'
import type { Decision, EvalContext, EvalRequest, GateEvaluator, GuardrailRound, GuardrailStage, GuardrailVerdict, Mode } from '../types.ts'

interface RoundOptions {
  readonly hooks: EngineHooks
  readonly request: EvalRequest
  readonly ctx: EvalContext
  readonly local: Decision
  readonly evaluators: readonly GateEvaluator[]
  readonly mode: Mode
  readonly enabled: boolean
  readonly log: Logger
}

/** Runs the round and folds it into the final decision (the local decision is never loosened). */
export async function runGuardrails(opts: RoundOptions): Promise<Decision> {
  const { local } = opts
  const localView = { verdict: local.verdict, ledgerVerdict: local.ledgerVerdict, ruleId: local.ruleId, reason: local.reason }
  if (!opts.enabled) return { ...local, guardrail: { enabled: false, local: localView, verdict: 'disabled', evaluators: [] } }
  const round: GuardrailRound = { request: opts.request, ctx: opts.ctx, local, evaluators: opts.evaluators, verdicts: [] }
  let failure: string | undefined
  try {
    await opts.hooks.guardrail.promise(round)
  } catch (err) {
    // A tap outside defineGuardrailProvider that throws: its evaluators abstain (never an implicit deny).
    failure = (err as Error).message
  }
  const verdicts = completeVerdicts(round, failure)
  for (const v of verdicts) {
    if (v.effect === 'abstain') opts.log.warn({ gate: v.gateId, provider: v.provider, model: v.model, abstained: v.abstained, mode: opts.mode }, 'guardrail abstained')
  }
  const deciding = verdicts.find((v) => v.effect === 'deny') ?? verdicts.find((v) => v.effect === 'monitor')
  const verdict = deciding?.effect === 'deny' ? 'deny' : deciding ? 'monitor' : verdicts.some((v) => v.effect === 'allow') ? 'allow' : 'abstain'
  const stage: GuardrailStage = { enabled: true, local: localView, verdict, evaluators: verdicts }
  if (!deciding) return { ...local, guardrail: stage }
  const reason = `guardrail ${deciding.model} (gate ${deciding.gateId}): ${deciding.reason}`
  if (deciding.effect === 'deny' && opts.mode === 'firewall') {
    return { ...local, verdict: 'deny', ledgerVerdict: 'deny', ruleId: '', reason, nudge: undefined, monitorMatch: false, stage: 'guardrail', guardrail: stage }
  }
  const why = deciding.effect === 'deny' ? 'daemon is in monitor mode' : 'threshold action is monitor'
  return {
    ...local,
    verdict: 'allow',
    ledgerVerdict: 'monitor_alert',
    ruleId: '',
    reason: `monitored (${why}): ${reason}`,
    nudge: undefined,
    monitorMatch: true,
    stage: 'guardrail',
    guardrail: stage,
  }
}

/** One verdict per evaluator, in policy order: what no tap answered is skipped (after a deny) or an abstention. */
function completeVerdicts(round: GuardrailRound, failure: string | undefined): GuardrailVerdict[] {
  const byIndex = new Map(round.verdicts.map((v) => [v.index, v]))
  const denied = round.verdicts.some((v) => v.effect === 'deny')
  return round.evaluators.map(({ index, gateId, evaluator }) => {
    const got = byIndex.get(index)
    if (got) return got
    const base = { index, gateId, provider: evaluator.model.provider, model: evaluator.model.id, latencyMs: 0, cached: false }
    if (denied) return { ...base, effect: 'skipped', reason: 'not asked: an earlier evaluator denied' }
    const detail =
      failure !== undefined
        ? `guardrail hook failed: ${failure}`
        : evaluator.model.kind === 'account_policy'
          ? `${evaluator.model.id} is an account_policy entry: listed in the catalog only, never run`
          : `no provider plugin runs ${evaluator.model.id}`
    return { ...base, effect: 'abstain', reason: detail, abstained: { kind: failure !== undefined ? 'provider_error' : 'unsupported_entry', detail } }
  })
}
