/**
 * The engine orchestrates one decision: preEvaluate → gates of every layer → combine → postLocal →
 * guardrail (only after a local allow) → durable ledger append → answer. It never crashes and never
 * fails open on the request path: an error becomes a coded deny that is still written to the ledger.
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { callPayloadBytes, sha256 } from './hash.ts'
import { illFormedAt, wellFormed } from './well-formed.ts'
import { assertNotLoosened, combine, refuse } from './decision.ts'
import { EngineError } from './errors.ts'
import { runGuardrails, type GateEvaluator } from './guardrail/round.ts'
import { createHooks, type EngineHooks } from './hooks.ts'
import { SqliteLedger, type Ledger } from './ledger/ledger.ts'
import { applyPlugins, createRegistries, type EnginePlugin, type Registries } from './plugin.ts'
import { GateCompiler } from './policy/compile.ts'
import { indexOf } from './policy/gate-index.ts'
import { evaluateNode, type GateTrace, type NodeTrace } from './policy/evaluate.ts'
import { openDisableSealer, type DisableSealer } from './policy/disable-seal.ts'
import { PolicyStore } from './policy/store.ts'
import { openParseCache } from './policy/parse-cache.ts'
import { parserFingerprint } from './policy/parse.ts'
import { expiredSessionReason } from './sessions/expired.ts'
import { SessionStore, type Session } from './sessions/store.ts'
import { svcPortSet } from './match/svc-ports.ts'
import { gateKey, StateDb } from './state/state-db.ts'
import { latestLedgerMode, sealMode, startMode } from './state/mode-record.ts'
import { assertAboveFloor, belowFloor, modeFloorRegistry } from './state/mode-floor.ts'
import type { Decision, EvalContext, EvalRequest, GateHit, LedgerDraft, LedgerEntry, Mode, OperatorEventVerdict, ToolCall } from './types.ts'

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
   */
  decide(call: ToolCall, session?: Session, trace?: GateTrace[]): Promise<{ request: EvalRequest; decision: Decision }>
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

/** Why the normalised call was not examined in full (a command over the analysis budget, input over the walk's bounds). */
function coverageGap(request: EvalRequest): string | undefined {
  if (request.shell?.error) return `command could not be analysed (${request.shell.error}); refusing to guess what it runs`
  if (request.uncovered) return `tool input could not be examined in full (${request.uncovered}); refusing to guess what it touches`
  return undefined
}

/** Why a call cannot be read as text at all (a lone surrogate in any field), or undefined. */
function unreadableCall(call: ToolCall): string | undefined {
  const { sessionId, source, tool, cwd, toolUseId, input, meta } = call
  const at = illFormedAt({ session_id: sessionId, source, tool, cwd, tool_use_id: toolUseId, input, meta }, 'call')
  return at === undefined ? undefined : `field "${at.slice('call.'.length)}" is not valid Unicode text (a lone UTF-16 surrogate), so svc cannot tell what the call does; refused`
}

/** Builds an engine: applies plugins, opens state, loads policy (a bad policy at boot is fatal). */
export async function createEngine(opts: EngineOptions): Promise<Engine> {
  mkdirSync(opts.home, { recursive: true, mode: 0o700 })
  const hooks = createHooks()
  const registry = createRegistries()
  applyPlugins(opts.plugins, { hooks, registry, log: opts.log, home: opts.home, env: opts.env ?? {} })
  await hooks.initialize.promise()
  const sealer = openDisableSealer(opts.home)
  const onReload = (hash: string, previous: string) => {
    recordEvent('policy_reloaded', { policy_hash: hash, previous_policy_hash: previous }, `policy reloaded: ${previous} -> ${hash}`).catch((err: unknown) => opts.log.error({ err }, 'could not ledger a policy reload'))
  }
  const compiler = new GateCompiler(registry, hooks)
  const parseCache = openParseCache(join(opts.home, 'cache', 'policy'), sha256(`${parserFingerprint()}\0${compiler.schemaFingerprint()}`))
  const policy = new PolicyStore({ policiesDir: opts.policiesDir, home: opts.home, compiler, sealer, log: opts.log.child({ part: 'policy' }), parseCache, onReload })
  policy.load(Date.now())
  const ledger = opts.ledger ?? new SqliteLedger(join(opts.home, 'ledger.db'))
  const sessions = opts.sessions ?? new SessionStore()
  // The daemon signs checkpoints by itself, with an active session key (the current session's first).
  ledger.autoCheckpoint(() => {
    const now = Date.now()
    const signer = [sessions.current(), ...sessions.list()].find((s) => s?.signCheckpoint && sessions.status(s.id, now).state === 'active')
    signer?.signCheckpoint?.(ledger)
  }, opts.checkpointIntervalMs)
  const state = new StateDb(join(opts.home, 'state.db'), (err) => opts.log.error({ err }, 'state.db: gate counters could not be saved; retrying every second'))
  const userHome = opts.userHome ?? homedir()
  let mode: Mode
  try {
    mode = startMode(state.modeRow(), latestLedgerMode(ledger), sealer, join(opts.home, 'state.db'))
  } catch (err) {
    state.close()
    ledger.close()
    throw err
  }
  let guardrailsEnabled = state.getGuardrailsEnabled()
  if (opts.watch) policy.watch()
  let svcPorts = svcPortSet(opts.svcPorts)
  const evalContext = (session?: Session): EvalContext => ({ now: Date.now(), session, home: userHome, svcHome: opts.home, policiesDir: opts.policiesDir, svcPorts })

  async function decide(call: ToolCall, session?: Session, trace?: GateTrace[]): Promise<{ request: EvalRequest; decision: Decision }> {
    const ctx = evalContext(session)
    const request = await hooks.preEvaluate.promise({ ...call, paths: [], urls: [] }, ctx)
    const gap = coverageGap(request)
    if (gap) {
      if (mode === 'firewall') return { request, decision: refuse(gap) }
      return { request, decision: { ...refuse(gap), verdict: 'allow', ledgerVerdict: 'monitor_alert', monitorMatch: true } }
    }
    const hits: GateHit[] = []
    const evaluators: GateEvaluator[] = []
    for (const { layer, gates, exclude } of policy.gatesFor(request, ctx)) {
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
        hits.push({ gateId: gate.id, layer, source: gate.source, onHit: gate.onHit, requireStrong: gate.requireStrong, nudge: gate.nudge, reason: gate.description ?? `matched ${matched}` })
      }
    }
    const local = combine(hits, mode, session?.signer)
    const refined = await hooks.postLocal.promise(local, request, ctx)
    assertNotLoosened(local, refined)
    // Guardrails only after a local allow: a local deny (even one monitor mode lets through) never reaches a provider.
    const localDeny = refined.verdict === 'deny' || refined.hits.some((h) => h.onHit === 'deny')
    if (localDeny || evaluators.length === 0) return { request, decision: refined }
    const decision = await runGuardrails({ hooks, request, ctx, local: refined, evaluators, mode, enabled: guardrailsEnabled, log: opts.log.child({ part: 'guardrail' }) })
    return { request, decision }
  }

  async function recordEvent(verdict: OperatorEventVerdict, facts: Readonly<Record<string, string>>, reason: string): Promise<LedgerEntry> {
    const current = sessions.current()
    const session = current && sessions.status(current.id, Date.now()).state === 'active' ? current : undefined
    return record(
      {
        kind: 'control', sessionId: session?.id ?? '', signer: session?.signer ?? 'none', source: 'svc', tool: '', verdict, monitorMatch: false,
        ruleId: '', toolUseId: '', policyTrace: [], payloadHash: '', reason, at: Date.now(), facts,
      },
      session,
    )
  }

  async function record(draft: LedgerDraft, session?: Session, decision?: Decision, payloadBytes?: string): Promise<LedgerEntry> {
    const entry = await ledger.append(draft, session?.sign)
    try {
      hooks.ledgerAppend.call(entry, decision, payloadBytes)
    } catch (err) {
      opts.log.error({ err }, 'ledgerAppend observer failed')
    }
    return entry
  }

  async function check(call: ToolCall, refusal?: string): Promise<CheckResult> {
    const now = Date.now()
    const status = sessions.status(call.sessionId, now)
    let request: EvalRequest = { ...call, paths: [], urls: [] }
    let decision: Decision
    const unreadable = refusal ?? unreadableCall(call)
    if (unreadable !== undefined) {
      decision = refuse(unreadable)
    } else if (status.state === 'unknown') {
      decision = refuse(`unknown session "${call.sessionId}": mint one with \`svc session create\``)
    } else if (status.state === 'expired') {
      decision = refuse(expiredSessionReason(call.sessionId, status.session.signer))
    } else {
      sessions.touch(call.sessionId, now)
      try {
        ;({ request, decision } = await decide(call, status.session))
      } catch (err) {
        // Fail closed: an engine or plugin failure is a deny with its code, never an allow.
        const code = err instanceof EngineError ? err.code : 'PE_INTERNAL'
        opts.log.error({ err }, 'decision failed; denying')
        decision = refuse(`policy engine error ${code}: ${(err as Error).message}`)
      }
    }
    for (const hit of decision.hits) state.recordHit(gateKey(hit.source, hit.gateId), now)
    const session = status.state === 'active' ? status.session : undefined
    // Canonicalised once: the leaf's payload_hash and the bytes observers store are the same computation.
    const payloadBytes = callPayloadBytes(call)
    const entry = await record(
      {
        kind: 'decision',
        // The leaf is canonical JSON: only well-formed text goes in (an unreadable call was refused above).
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
        payloadHash: sha256(payloadBytes),
        reason: wellFormed(decision.reason),
        ...(decision.stage === 'guardrail' ? { stage: 'guardrail' as const } : {}),
        at: now,
        policyHash: policy.hash,
        mode,
      },
      session,
      decision,
      payloadBytes,
    )
    const nudge = decision.verdict === 'deny' ? decision.nudge : undefined
    return { verdict: decision.verdict, rule_id: decision.ruleId, reason: decision.reason, ...(nudge ? { nudge } : {}), ledger_seq: entry.seq, decision, request }
  }

  const floor = modeFloorRegistry(registry).get('mode')
  const engine: Engine = {
    hooks,
    registry,
    policy,
    ledger,
    sessions,
    state,
    sealer,
    home: opts.home,
    log: opts.log,
    mode: () => mode,
    async setMode(next, who, reason) {
      assertAboveFloor(next, floor)
      const previous = mode
      // A change whose sealed row could not be written would refuse the next start: check first.
      state.assertWritable()
      const entry = await recordEvent('mode_changed', { who, from: previous, to: next, ...(reason ? { reason } : {}) }, `daemon mode ${previous} -> ${next} by ${who}${reason ? `: ${reason}` : ''}`)
      mode = next
      try {
        state.setModeRow(sealMode(sealer, next, entry.seq))
      } catch (err) {
        opts.log.error({ err, mode: next, seq: entry.seq }, 'mode changed and ledgered, but state.db could not store it: the next start will refuse until the row is fixed')
      }
      return entry
    },
    guardrailsEnabled: () => guardrailsEnabled,
    setGuardrailsEnabled(enabled) {
      state.setGuardrailsEnabled(enabled)
      guardrailsEnabled = enabled
    },
    svcPorts: () => svcPorts,
    setSvcPorts(ports) {
      svcPorts = svcPortSet(ports)
    },
    evalContext,
    decide,
    check,
    record,
    recordEvent,
    async close() {
      policy.close()
      await hooks.shutdown.promise()
      state.close()
      await ledger.close()
    },
  }
  // A machine whose managed floor is above the mode it kept is raised at start, ledgered like any change.
  if (belowFloor(mode, floor)) {
    try {
      await engine.setMode(floor!, 'managed floor', `the managed file sets the floor mode ${floor}`)
    } catch (err) {
      await engine.close()
      throw err
    }
  }
  return engine
}
