/** What the engine is to its callers: its options, the answer of a check, and the Engine itself (createEngine in engine.ts). */
import type { Logger } from 'pino'
import type { EngineHooks } from '../hooks.ts'
import type { Ledger } from '../ledger/ledger.ts'
import type { EnginePlugin, Registries } from '../plugin.ts'
import type { GateTrace } from '../policy/evaluate.ts'
import type { DisableSealer } from '../policy/disable-seal.ts'
import type { PolicyStore } from '../policy/store.ts'
import type { Session, SessionStore } from '../sessions/store.ts'
import type { StateDb } from '../state/state-db.ts'
import type { Decision, EvalContext, EvalRequest, LedgerDraft, LedgerEntry, Mode, OperatorEventVerdict, ToolCall } from '../types.ts'

export interface EngineOptions {
  readonly plugins: readonly EnginePlugin[]
  /** `$SVC_HOME`: ledger, state, policy files. */
  readonly home: string
  /** Directory of the shipped daemon-layer policy files. */
  readonly policiesDir: string
  /** Home directory of the user whose agents are governed (for `~` in paths); defaults to os.homedir(). */
  readonly userHome?: string
  readonly log: Logger
  /** The environment plugins may read once at start (guardrail credentials `<PROVIDER>_API_KEY`); empty when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Watch policy files for changes (the daemon does; one-shot tools like `svc explain` do not). */
  readonly watch?: boolean
  /** `$SVC_PORTS`: the ports the control plane is reachable on (see svcPortSet); 7878/7879 when absent. */
  readonly svcPorts?: readonly number[]
  /** Overrides for subsystems (tests and the trust-chain plugins). */
  readonly ledger?: Ledger
  /** How often checkpoints are signed while leaves arrive (default 2 s). */
  readonly checkpointIntervalMs?: number
  readonly sessions?: SessionStore
}

/** The spec's gate-check response plus the full decision for traces. */
export interface CheckResult {
  readonly verdict: 'allow' | 'deny'
  readonly rule_id: string
  readonly reason: string
  readonly nudge?: string
  readonly ledger_seq: number
  readonly decision: Decision
  readonly request: EvalRequest
}

export interface Engine {
  readonly hooks: EngineHooks
  readonly registry: Registries
  readonly policy: PolicyStore
  readonly ledger: Ledger
  readonly sessions: SessionStore
  readonly state: StateDb
  readonly sealer: DisableSealer
  readonly home: string
  readonly log: Logger
  mode(): Mode
  /** Changes the mode: a `mode_changed` control leaf first (who, from, to), then the sealed state row. */
  /** Sets the daemon mode and ledgers who did it (and why, when a reason is given). */
  setMode(mode: Mode, who: string, reason?: string): Promise<LedgerEntry>
  /** Whether guardrail evaluators run after a local allow (persisted; on by default). */
  guardrailsEnabled(): boolean
  setGuardrailsEnabled(enabled: boolean): void
  /** What `$SVC_PORTS` is bound to now. */
  svcPorts(): readonly number[]
  /** Rebinds `$SVC_PORTS` (the daemon does once it knows the port it listens on); the defaults are always kept. */
  setSvcPorts(ports: readonly number[]): void
  /** The context every gate sees for a call now: the only place it is built, so `svc explain` sees the daemon's. */
  evalContext(session?: Session): EvalContext
  /**
   * Normalises a call and decides it without touching the ledger or counters. With `trace`, every gate it
   * evaluates is appended there with what each node of its `when` did (`svc explain` prints exactly that).
   * `localOnly` stops before the guardrails (the daemon's warm-up: nothing may reach a provider).
   */
  decide(call: ToolCall, session?: Session, trace?: GateTrace[], localOnly?: boolean): Promise<{ request: EvalRequest; decision: Decision }>
  /**
   * Decides a call and records it durably; the verdict is returned only after the leaf is on disk. With
   * `refusal` the call is not decided but denied for that reason (a payload svc could not read), and recorded.
   */
  check(call: ToolCall, refusal?: string): Promise<CheckResult>
  /** Appends a non-decision entry (outcome row, session event) signed by the given session. */
  record(draft: LedgerDraft, session?: Session): Promise<LedgerEntry>
  /**
   * Ledgers something that changed what the gate does (mode, pins, hooks, policy): an `control` leaf with
   * `facts` (who and what), signed by the current session while it is active.
   */
  recordEvent(verdict: OperatorEventVerdict, facts: Readonly<Record<string, string>>, reason: string): Promise<LedgerEntry>
  close(): Promise<void>
}
