/**
 * The hook protocol: what the daemon does with a parsed harness hook, independent of HTTP. Pre-tool calls
 * are decided (and recorded) under the daemon's current session; a duplicate delivery of the same tool use
 * gets the first answer without a second leaf; post-tool events append outcome rows linked to their
 * pre-tool leaf by tool use id. The link and the de-duplication are looked up in the ledger, so both hold
 * across daemon restarts; memory.ts covers what the ledger cannot show yet.
 */
import type { Engine } from '../../core/engine.ts'
import { harnessRegistry, type HookAnswer, type HookInput } from '../../harness-contract/index.ts'
import { payloadHash } from '../../core/hash.ts'
import { withPayloadDigest } from '../../core/engine/read-call.ts'
import type { LeafObject } from '../../core/ledger/leaf.ts'
import type { Session } from '../../core/sessions/store.ts'
import { sessionAdvice } from '../../core/sessions/expired.ts'
import type { ToolCall } from '../../core/types.ts'
import { HookCoverage } from './coverage.ts'
import { HookMemory, REPLAY_MS, replayIgnoreOf, type CallIdentity, type ReplayIgnore } from './memory.ts'
import { renewalOf } from '../renewal.ts'

type HarnessCall = Omit<ToolCall, 'sessionId'>

/** A parsed hook the protocol acts on (ignored events never reach it). */
export type ProtocolInput = Exclude<HookInput, { kind: 'ignore' }>

/** One daemon's hook protocol: keeps the in-flight and replay memory of its deliveries. */
export class HookProtocol {
  readonly #engine: Engine
  readonly #memory = new HookMemory()
  readonly #now: () => number
  /** Input fields the registered harnesses call cosmetic: a duplicate differing only there is the same call. */
  readonly #ignore: ReplayIgnore
  /** Which harness sessions reach the daemon, and whether their tool calls were gated. */
  readonly coverage = new HookCoverage()

  constructor(engine: Engine, now: () => number = Date.now) {
    this.#engine = engine
    this.#now = now
    this.#ignore = replayIgnoreOf(harnessRegistry(engine.registry).values())
  }

  /**
   * Serves one parsed hook: the answer to a pre-tool call, or undefined once an outcome is recorded.
   * Throws when a pre-tool call cannot be decided; the caller renders that as a deny (never a pass).
   */
  async handle(input: ProtocolInput): Promise<HookAnswer | undefined> {
    const { call } = input
    const toolUseId = call.toolUseId ?? ''
    const key = toolUseId ? HookMemory.key(call.source, toolUseId) : undefined
    if (input.kind === 'outcome') {
      this.coverage.seen(call, this.#now())
      const record = () => this.#recordOutcome(call, input.outcome, key, input.unlinkable === true)
      await (key ? this.#memory.once(`${key}\u0000${input.outcome}`, record) : record())
      return undefined
    }
    // Derived ids name the call, not one use of it: never duplicates, so never replayed (and never hashed
    // for replay: inputs can be megabytes of file content).
    this.coverage.gated(call, this.#now())
    const replayKey = input.derivedId ? undefined : key
    const identity = replayKey ? HookMemory.identify(call, this.#ignore) : undefined
    const callHash = identity?.callHash ?? ''
    const decide = () => this.#decidePreTool(call, identity, replayKey)
    // Concurrent duplicates of the same call wait for one decision; a different call under the same id decides.
    return replayKey ? (await this.#memory.once(`${replayKey}\u0000${callHash}`, decide)).value : decide()
  }

  /**
   * The answer to a pre-tool call: decided (and recorded) by the engine under the daemon's current session,
   * unless `replayKey` names a tool use answered moments ago. A second delivery of the same tool use
   * (another hook format of the same harness) gets the first answer without a second leaf. An allow is
   * replayed only to the same call: a tool use id never carries an allow to other input.
   */
  async #decidePreTool(call: HarnessCall, identity: CallIdentity | undefined, replayKey: string | undefined): Promise<HookAnswer> {
    const engine = this.#engine
    const now = this.#now()
    const callHash = identity?.callHash ?? ''
    const previous = replayKey ? engine.ledger.latestDecision(call.source, call.toolUseId ?? '') : undefined
    if (previous && now - previous.leaf.ts_ms <= REPLAY_MS) {
      const sameCall = (this.#memory.callHashOf(previous.seq, now) ?? previous.leaf.payload_hash) === callHash || previous.leaf.payload_hash === identity?.payload.hash
      if (sameCall || previous.leaf.verdict === 'deny') return this.#memory.answer(previous.seq, now) ?? this.#answerOf(previous.leaf)
    }
    const session = await this.#servingSession(now)
    // The payload digest made with the replay identity goes along: the call is canonicalised and hashed once.
    const sessionCall = { ...call, sessionId: session?.id ?? 'none' }
    // Without a live session the call is refused with the true next step (the renewer's state says which).
    const advice = session && engine.sessions.status(session.id, now).state === 'active' ? undefined : sessionAdvice(session, renewalOf(engine.sessions).renewer(), now)
    const result = await engine.check(identity ? withPayloadDigest(sessionCall, identity.payload) : sessionCall, advice && `${advice.what}; ${advice.next}`)
    const answer: HookAnswer = { verdict: result.verdict, ruleId: result.rule_id, reason: result.reason, ...(result.nudge ? { nudge: result.nudge } : {}) }
    this.#memory.remember(result.ledger_seq, answer, callHash, now)
    return answer
  }

  /**
   * The session a pre-tool call is decided under: the current one. When it is missing (a restarted daemon)
   * or expired, the renewer (`svc agent`) is woken and the call waits a bounded moment for the new session,
   * so it is not denied only because the renewal had not happened yet. Without a renewer it decides at once.
   */
  async #servingSession(now: number): Promise<Session | undefined> {
    const { sessions } = this.#engine
    const current = sessions.current()
    if (current && sessions.status(current.id, now).state === 'active') return current
    return (await renewalOf(sessions).awaitRenewal(now, current?.signer)) ? sessions.current() : current
  }

  /**
   * The answer a recorded decision leaf stands for (a duplicate delivery after a restart). The leaf has no
   * nudge: it comes from the denying gate of the live policy, as `combine` took it.
   */
  #answerOf(leaf: LeafObject): HookAnswer {
    if (leaf.verdict !== 'deny') return { verdict: 'allow', ruleId: leaf.rule_id, reason: leaf.reason }
    const layer = leaf.policy_trace.find((t) => t.rule_id === leaf.rule_id)
    const gate = leaf.rule_id ? this.#engine.policy.allGates().find((g) => g.id === leaf.rule_id && (!layer || g.source === layer.source)) : undefined
    return { verdict: 'deny', ruleId: leaf.rule_id, reason: leaf.reason, ...(gate?.nudge ? { nudge: gate.nudge } : {}) }
  }

  /**
   * Appends the outcome row of a tool use, linked to its decision leaf, signed by the current session while
   * it is live. A second delivery of the same outcome (after a restart too) finds it in the ledger and
   * appends nothing.
   */
  async #recordOutcome(call: HarnessCall, outcome: 'ran' | 'tool_errored', key: string | undefined, unlinkable: boolean): Promise<void> {
    const { ledger, sessions } = this.#engine
    const toolUseId = call.toolUseId ?? ''
    if (key) await this.#memory.settled(key)
    const parent = ledger.latestDecision(call.source, toolUseId)
    if (key && ledger.hasOutcomeAfter(call.source, toolUseId, parent?.seq ?? -1, outcome)) return
    const now = this.#now()
    if (!parent && toolUseId && !unlinkable) await this.#recordBypass(call, now)
    const session = sessions.current()
    const live = session && sessions.status(session.id, now).state === 'active' ? session : undefined
    await this.#engine.record(
      {
        kind: 'outcome',
        sessionId: session?.id ?? '',
        signer: live?.signer ?? 'none',
        source: call.source,
        tool: call.tool,
        verdict: outcome,
        monitorMatch: false,
        ruleId: '',
        toolUseId,
        policyTrace: [],
        payloadHash: payloadHash(call),
        reason: '',
        ...(parent ? { parentSeq: parent.seq } : {}),
        at: now,
      },
      live,
    )
  }

  /** A tool ran that svc never decided: the session's pre-tool hook is off or bypassed. A control leaf says so. */
  async #recordBypass(call: HarnessCall, now: number): Promise<void> {
    this.coverage.ungated(call, now)
    const harnessSession = typeof call.meta?.harness_session_id === 'string' ? call.meta.harness_session_id : ''
    const facts = { harness: call.source, tool: call.tool, tool_use_id: call.toolUseId ?? '', harness_session_id: harnessSession, cwd: call.cwd ?? '' }
    await this.#engine.recordEvent(
      'hook_bypassed',
      facts,
      `${call.source} ran ${call.tool || 'a tool'} without svc's pre-tool hook deciding it (session ${harnessSession || '?'}${call.cwd ? ` in ${call.cwd}` : ''}): its hooks are off or bypassed there`,
    )
  }
}
