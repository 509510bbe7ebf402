/**
 * The ledger end of the engine: every entry goes through recordEntry, which appends it (durable once the
 * promise resolves) and then tells the ledgerAppend observers.
 */
import type { Decision, LedgerDraft, LedgerEntry, OperatorEventVerdict } from '../types.ts'
import type { Session } from '../sessions/store.ts'
import type { EngineState } from './state.ts'

/**
 * Appends `draft` signed by `session` and tells the observers; a decision's observers also get the decision
 * and the call's canonical payload bytes (the bytes its payload_hash is the SHA-256 of).
 */
export async function recordEntry(state: EngineState, draft: LedgerDraft, session?: Session, decision?: Decision, payloadBytes?: string): Promise<LedgerEntry> {
  const entry = await state.ledger.append(draft, session?.sign)
  try {
    state.hooks.ledgerAppend.call(entry, decision, payloadBytes)
  } catch (err) {
    state.log.error({ err }, 'ledgerAppend observer failed')
  }
  return entry
}

/**
 * Ledgers something that changed what the gate does (mode, pins, hooks, policy): a `control` leaf with
 * `facts`, signed by the current session while it is active, unsigned otherwise.
 */
export async function recordEvent(state: EngineState, verdict: OperatorEventVerdict, facts: Readonly<Record<string, string>>, reason: string): Promise<LedgerEntry> {
  const { sessions } = state
  const current = sessions.current()
  const session = current && sessions.status(current.id, Date.now()).state === 'active' ? current : undefined
  return recordEntry(
    state,
    {
      kind: 'control',
      sessionId: session?.id ?? '',
      signer: session?.signer ?? 'none',
      source: 'svc',
      tool: '',
      verdict,
      monitorMatch: false,
      ruleId: '',
      toolUseId: '',
      policyTrace: [],
      payloadHash: '',
      reason,
      at: Date.now(),
      facts,
    },
    session,
  )
}
