/**
 * What the hook route keeps in memory about tool uses. The ledger is the record: which decision an outcome
 * row links to and whether a delivery is a duplicate both come from it (`Ledger.latestDecision`), so they
 * survive a daemon restart. Memory only covers what the ledger cannot show yet or does not store:
 * - deliveries in flight: a duplicate arriving while the first is still being decided waits for that answer
 *   instead of deciding (and recording) the call a second time;
 * - the exact answers given recently, by ledger seq: a leaf stores verdict, rule and reason, not the nudge.
 */
import type { PayloadDigest } from '../../core/hash.ts'
import { payloadDigestWithout } from './replay-digest.ts'
import type { HarnessDefinition, HookAnswer } from '../../harness-contract/index.ts'

/**
 * How long an answer is replayed to a duplicate delivery. Short on purpose: duplicates arrive within
 * milliseconds, while a later identical call (a harness without tool use ids gets ids derived from the call) must be decided again.
 */
export const REPLAY_MS = 10_000
const MAX_ANSWERS = 10_000

/**
 * Input fields that describe rather than change a call, as the registered harnesses name them (`replayIgnore`):
 * `fields` always, `cwdEchoes` when they only repeat the cwd. One set for all: a duplicate may arrive through
 * another harness's hook (a harness that also runs another's hook format).
 */
export interface ReplayIgnore {
  readonly fields: ReadonlySet<string>
  readonly cwdEchoes: ReadonlySet<string>
}

export function replayIgnoreOf(harnesses: Iterable<HarnessDefinition>): ReplayIgnore {
  const list = [...harnesses]
  return { fields: new Set(list.flatMap((h) => h.replayIgnore?.fields ?? [])), cwdEchoes: new Set(list.flatMap((h) => h.replayIgnore?.cwdEchoes ?? [])) }
}

/** A call's replay identity and its payload digest. */
export interface CallIdentity {
  readonly callHash: string
  readonly payload: PayloadDigest
}

/** Per-app memory of the hook route: in-flight deliveries and recently given answers (see the module comment). */
export class HookMemory {
  readonly #inFlight = new Map<string, Promise<unknown>>()
  readonly #answers = new Map<number, { readonly answer: HookAnswer; readonly at: number; readonly callHash: string }>()

  static key(source: string, toolUseId: string): string {
    return `${source}\u0000${toolUseId}`
  }

  /**
   * What identifies a call for replay (`callHash`: the payload hash of tool, cwd and input without cosmetic
   * fields), with the digest of its whole payload from the same canonicalisation (engine.check reuses it).
   * Only the same call may reuse an allow given under its tool use id (a deny is always safe to replay).
   */
  static identify(call: { tool: string; input: Readonly<Record<string, unknown>>; cwd?: string }, ignore: ReplayIgnore): CallIdentity {
    const { digest, withoutHash } = payloadDigestWithout(call, (k, v) => ignore.fields.has(k) || (ignore.cwdEchoes.has(k) && v === call.cwd))
    return { callHash: withoutHash, payload: digest }
  }

  /**
   * Runs `work` for `key` unless a run for the same key is in flight; then it waits for that run and
   * answers with its result and `first: false`. Single-threaded, so the check and the set cannot interleave.
   */
  async once<T>(key: string, work: () => Promise<T>): Promise<{ readonly value: T; readonly first: boolean }> {
    const running = this.#inFlight.get(key) as Promise<T> | undefined
    if (running) return { value: await running, first: false }
    const started = work()
    this.#inFlight.set(key, started)
    try {
      return { value: await started, first: true }
    } finally {
      this.#inFlight.delete(key)
    }
  }

  /** Waits for in-flight runs of `key` or of keys refining it (`key\0...`); their failures are their callers' to report. */
  async settled(key: string): Promise<void> {
    const runs = [...this.#inFlight].filter(([k]) => k === key || k.startsWith(`${key}\u0000`)).map(([, run]) => run.catch(() => undefined))
    await Promise.all(runs)
  }

  remember(seq: number, answer: HookAnswer, callHash: string, now: number): void {
    this.#answers.set(seq, { answer, at: now, callHash })
    // Map iteration order is insertion order: the first key is the oldest.
    while (this.#answers.size > MAX_ANSWERS) this.#answers.delete(this.#answers.keys().next().value!)
  }

  /** The exact answer given for the leaf at `seq`, while it is still replayable. */
  answer(seq: number, now: number): HookAnswer | undefined {
    return this.#recent(seq, now)?.answer
  }

  /** The call hash the answer at `seq` was given for (undefined when not remembered). */
  callHashOf(seq: number, now: number): string | undefined {
    return this.#recent(seq, now)?.callHash
  }

  #recent(seq: number, now: number): { readonly answer: HookAnswer; readonly callHash: string } | undefined {
    const hit = this.#answers.get(seq)
    if (hit && now - hit.at <= REPLAY_MS) return hit
    if (hit) this.#answers.delete(seq)
    return undefined
  }
}
