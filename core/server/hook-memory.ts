/**
 * What the hook route remembers about recent tool uses: the answer given to each pre-tool call (so a
 * duplicate delivery — Cursor also running Claude-format hooks — gets the same answer without a second
 * ledger leaf) and its ledger seq (so outcome rows link to their parent). Bounded and time-limited.
 */
import type { HookAnswer } from '../harness.ts'

export interface Remembered {
  readonly answer: HookAnswer
  readonly seq: number
  readonly at: number
  readonly outcomes: Set<string>
}

const MAX_ENTRIES = 10_000
/** How long a tool use stays linkable for its outcome rows. */
const TTL_MS = 15 * 60_000
/**
 * How long an answer is replayed to a duplicate delivery. Short on purpose: duplicates arrive within
 * milliseconds, while a later identical call (Gemini ids are derived from the call) must be decided again.
 */
export const REPLAY_MS = 10_000

export class HookMemory {
  readonly #entries = new Map<string, Remembered>()

  static key(source: string, toolUseId: string): string {
    return `${source}\u0000${toolUseId}`
  }

  get(key: string, now: number): Remembered | undefined {
    const hit = this.#entries.get(key)
    if (!hit) return undefined
    if (now - hit.at > TTL_MS) {
      this.#entries.delete(key)
      return undefined
    }
    return hit
  }

  /** The answer to replay for a duplicate delivery, if the first one was moments ago. */
  replay(key: string, now: number): Remembered | undefined {
    const hit = this.get(key, now)
    return hit && now - hit.at <= REPLAY_MS ? hit : undefined
  }

  remember(key: string, answer: HookAnswer, seq: number, now: number): void {
    this.#entries.delete(key)
    this.#entries.set(key, { answer, seq, at: now, outcomes: new Set() })
    // Map iteration order is insertion order: the first key is the oldest.
    while (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!)
  }
}
