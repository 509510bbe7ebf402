/**
 * The engine orchestrates one decision: preEvaluate → gates of every layer → combine → postLocal →
 * guardrail (only after a local allow) → durable ledger append → answer. It never crashes and never
 * fails open on the request path: an error becomes a coded deny that is still written to the ledger.
 *
 * This file is the public surface; the work is in named functions over one EngineState (engine/setup.ts):
 * check → checkCall (engine/check.ts: payloadDigestOf and unreadableCall from engine/read-call.ts, then
 * decideOrRefuse → decideCall in engine/decide.ts, then decisionDraft) → recordEntry (engine/record.ts)
 * → Ledger.append.
 */
import { svcPortSet } from './match/svc-ports.ts'
import { checkCall } from './engine/check.ts'
import { decideCall, evalContext } from './engine/decide.ts'
import { raiseToFloor, setMode } from './engine/mode.ts'
import { recordEntry, recordEvent } from './engine/record.ts'
import { closeEngine, setupEngine } from './engine/setup.ts'
import type { EngineState } from './engine/state.ts'
import type { Engine, EngineOptions } from './engine/contract.ts'

export type { Engine, EngineOptions } from './engine/contract.ts'

/** Builds an engine: applies plugins, opens state, loads policy (a bad policy at boot is fatal). */
export async function createEngine(opts: EngineOptions): Promise<Engine> {
  const state = await setupEngine(opts)
  try {
    await raiseToFloor(state)
  } catch (err) {
    await closeEngine(state)
    throw err
  }
  return engineOf(state)
}

/** The public face of an engine's state: each method is one named engine function. */
function engineOf(state: EngineState): Engine {
  return {
    hooks: state.hooks,
    registry: state.registry,
    policy: state.policy,
    ledger: state.ledger,
    sessions: state.sessions,
    state: state.stateDb,
    sealer: state.sealer,
    home: state.home,
    log: state.log,
    mode: () => state.mode,
    setMode: (mode, who, reason) => setMode(state, mode, who, reason),
    guardrailsEnabled: () => state.guardrailsEnabled,
    setGuardrailsEnabled(enabled) {
      state.stateDb.setGuardrailsEnabled(enabled)
      state.guardrailsEnabled = enabled
    },
    svcPorts: () => state.svcPorts,
    setSvcPorts(ports) {
      state.svcPorts = svcPortSet(ports)
    },
    evalContext: (session) => evalContext(state, session),
    decide: (call, session, trace, localOnly) => decideCall(state, call, session, trace, localOnly),
    check: (call, refusal) => checkCall(state, call, refusal),
    record: (draft, session) => recordEntry(state, draft, session),
    recordEvent: (verdict, facts, reason) => recordEvent(state, verdict, facts, reason),
    close: () => closeEngine(state),
  }
}
