/**
 * What the hook route keeps in memory about tool uses. The ledger is the record: which decision an outcome
 * row links to and whether a delivery is a duplicate both come from it (`Ledger.latestDecision`), so they
 * survive a daemon restart. Memory only covers what the ledger cannot show yet or does not store:
 * - deliveries in flight: a duplicate arriving while the first is still being decided waits for that answer
 *   instead of deciding (and recording) the call a second time;
 * - the exact answers given recently, by ledger seq: a leaf stores verdict, rule and reason, not the nudge.
 */
import type { HookAnswer } from '../harness.ts'

/**
 * How long an answer is replayed to a duplicate delivery. Short on purpose: duplicates arrive within
 * milliseconds, while a later identical call (Gemini ids are derived from the call) must be decided again.
 */
export const REPLAY_MS = 10_000
const MAX_ANSWERS = 10_000

export class HookMemory {
  readonly #inFlight = new Map<string, Promise<unknown>>()
  readonly #answers = new Map<number, { readonly answer: HookAnswer; readonly at: number }>()

  static key(source: string, toolUseId: string): string {
    return `${source}\u0000${toolUseId}`
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

  /** Waits for an in-flight run of `key` (its failure is its caller's to report). */
  async settled(key: string): Promise<void> {
    await this.#inFlight.get(key)?.catch(() => undefined)
  }

  remember(seq: number, answer: HookAnswer, now: number): void {
    this.#answers.set(seq, { answer, at: now })
    // Map iteration order is insertion order: the first key is the oldest.
    while (this.#answers.size > MAX_ANSWERS) this.#answers.delete(this.#answers.keys().next().value!)
  }

  /** The exact answer given for the leaf at `seq`, while it is still replayable. */
  answer(seq: number, now: number): HookAnswer | undefined {
    const hit = this.#answers.get(seq)
    if (hit && now - hit.at <= REPLAY_MS) return hit.answer
    if (hit) this.#answers.delete(seq)
    return undefined
  }
}
