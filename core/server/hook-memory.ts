/**
 * What the hook route remembers about recent tool uses: the answer given to each pre-tool call (so a
 * duplicate delivery — Cursor also running Claude-format hooks — gets the same answer without a second
 * ledger leaf) and its ledger seq (so outcome rows link to their parent). Bounded and time-limited.
 */
import { payloadHash } from '../engine.ts'
import type { HookAnswer } from '../harness.ts'

export interface Remembered {
  readonly answer: HookAnswer
  readonly seq: number
  readonly at: number
  readonly outcomes: Set<string>
  /** Hash of the normalised call that was decided: only the same call may reuse the answer. */
  readonly callHash: string
}

const MAX_ENTRIES = 10_000
const COSMETIC: ReadonlySet<string> = new Set(['description', 'timeout', 'run_in_background', 'explanation'])

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

  /**
   * The answer to replay for a duplicate delivery: the first one was moments ago and decided the very same
   * normalised call. A delivery that reuses a tool use id with other input is decided afresh, so an id can
   * never carry an allow over to a different call.
   */
  replay(key: string, callHash: string, now: number): Remembered | undefined {
    const hit = this.get(key, now)
    // Replaying a deny is always safe; an allow only for the same call.
    return hit && now - hit.at <= REPLAY_MS && (hit.callHash === callHash || hit.answer.verdict === 'deny') ? hit : undefined
  }

  /**
   * What identifies a call for replay: tool, cwd and input, without fields that describe rather than
   * change the call (Cursor's own format adds `working_directory` = cwd; Claude's adds a `description`).
   */
  static callHash(call: { tool: string; input: Readonly<Record<string, unknown>>; cwd?: string }): string {
    const input = Object.fromEntries(Object.entries(call.input).filter(([k, v]) => !COSMETIC.has(k) && !(k === 'working_directory' && v === call.cwd)))
    return payloadHash({ tool: call.tool, input, ...(call.cwd !== undefined ? { cwd: call.cwd } : {}) })
  }

  remember(key: string, answer: HookAnswer, seq: number, callHash: string, now: number): void {
    this.#entries.delete(key)
    this.#entries.set(key, { answer, seq, at: now, outcomes: new Set(), callHash })
    // Map iteration order is insertion order: the first key is the oldest.
    while (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!)
  }
}
