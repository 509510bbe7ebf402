/**
 * Pure decision rules: deny-overrides across layers, the outer daemon mode, `require_strong`, and the
 * nudge rule. No I/O here, so every rule is testable in isolation.
 */
import { EngineError, ERR } from './errors.ts'
import { LAYERS, type Decision, type GateHit, type LayerTrace, type Mode, type SignerKind } from './types.ts'

/** Only a hardware key satisfies `require_strong` (DESIGN.md §4). */
export function isStrongSigner(signer: SignerKind | undefined): boolean {
  return signer === 'hardware_key'
}

/**
 * Combines the gates that matched one call into a decision.
 * - A `require_strong` gate that matched denies any session without a strong signer, in every mode.
 * - A `deny` hit denies in firewall mode and becomes a monitor alert in monitor mode.
 * - A `monitor` hit only ever alerts. An `allow` hit never overrides a deny (deny-overrides).
 * - The nudge is kept only when the final verdict is deny.
 */
export function combine(hits: readonly GateHit[], mode: Mode, signer: SignerKind | undefined): Decision {
  const strong = isStrongSigner(signer)
  const weakStrongHit = hits.find((h) => h.requireStrong && !strong)
  const denyHit = hits.find((h) => h.onHit === 'deny')
  const alertHit = hits.find((h) => h.onHit === 'monitor')
  const allowHit = hits.find((h) => h.onHit === 'allow')
  const trace = layerTrace(hits, strong)

  if (weakStrongHit) {
    return {
      verdict: 'deny',
      ledgerVerdict: 'deny',
      ruleId: weakStrongHit.gateId,
      reason: `${weakStrongHit.gateId}: requires a strong signer (hardware key); this session is signed by ${signer ?? 'nobody'}`,
      nudge: weakStrongHit.nudge,
      monitorMatch: false,
      hits,
      trace,
      stage: 'local',
    }
  }
  if (denyHit && mode === 'firewall') {
    return {
      verdict: 'deny',
      ledgerVerdict: 'deny',
      ruleId: denyHit.gateId,
      reason: `${denyHit.gateId}: ${denyHit.reason}`,
      nudge: denyHit.nudge,
      monitorMatch: false,
      hits,
      trace,
      stage: 'local',
    }
  }
  const monitored = denyHit ?? alertHit
  if (monitored) {
    const why = denyHit ? 'daemon is in monitor mode' : 'gate is monitor-only'
    return {
      verdict: 'allow',
      ledgerVerdict: 'monitor_alert',
      ruleId: monitored.gateId,
      reason: `monitored (${why}): ${monitored.gateId}: ${monitored.reason}`,
      monitorMatch: true,
      hits,
      trace,
      stage: 'local',
    }
  }
  if (allowHit) {
    return { verdict: 'allow', ledgerVerdict: 'allow', ruleId: allowHit.gateId, reason: `${allowHit.gateId}: allowed by policy`, monitorMatch: false, hits, trace, stage: 'local' }
  }
  return { verdict: 'allow', ledgerVerdict: 'allow', ruleId: '', reason: 'no gate matched', monitorMatch: false, hits, trace, stage: 'local' }
}

/** A core refusal (no session, expired session, unanalysable call): always deny, in every mode. */
export function refuse(reason: string, trace: readonly LayerTrace[] = []): Decision {
  return { verdict: 'deny', ledgerVerdict: 'deny', ruleId: '', reason, monitorMatch: false, hits: [], trace, stage: 'core' }
}

/** postLocal's result, never looser (asserted) but by a user's grant, which waives its gates' plain deny hits (the rest is combined again). */
export function waive(before: Decision, after: Decision, mode: Mode, signer: SignerKind | undefined, grant = after.grant): Decision {
  if (!grant) return assertNotLoosened(before, after) ?? after
  const kept = before.hits.filter((h) => h.onHit !== 'deny' || h.requireStrong || !grant.gates.includes(h.gateId))
  const rest = combine(kept, mode, signer)
  return rest.verdict === 'deny' ? rest : { ...rest, grant, reason: `allowed by the user's grant ${grant.id} over ${grant.gates.join(', ')}; then ${rest.reason}` }
}

/** Throws when `after` is looser than `before`: postLocal taps may tighten a decision, never loosen it. */
export function assertNotLoosened(before: Decision, after: Decision, tap = 'postLocal'): void {
  if (before.verdict === 'deny' && after.verdict !== 'deny') {
    throw new EngineError(ERR.DECISION_LOOSENED, `${tap} turned a deny (${before.ruleId || before.reason}) into ${after.verdict}`, { hook: 'postLocal' })
  }
}

function layerTrace(hits: readonly GateHit[], strong: boolean): LayerTrace[] {
  const out: LayerTrace[] = []
  for (const layer of LAYERS) {
    const mine = hits.filter((h) => h.layer === layer)
    if (mine.length === 0) continue
    const deny = mine.find((h) => h.onHit === 'deny' || (h.requireStrong && !strong))
    const alert = mine.find((h) => h.onHit === 'monitor')
    const pick = deny ?? alert ?? mine[0]!
    out.push({ layer, source: pick.source, verdict: deny ? 'deny' : alert ? 'monitor_alert' : 'allow', rule_id: pick.gateId })
  }
  return out
}
