/**
 * The record of what `svc mcp-proxy` relays without a verdict ("logs the rest"): one entry per message with its
 * direction, kind, method, id and size, never its params or result. Entries are batched and posted to the daemon
 * (POST /v1/mcp/proxy/log) at most once per interval, one post in flight at a time, off the relay's path: the
 * stream never waits for the record. The queue is bounded; what cannot be queued or posted is counted as dropped,
 * the count travels with the next batch the daemon accepts, and the first failure is said on stderr.
 */
// One entry type for the relay and the daemon (a type-only import: the relay loads nothing from plugins).
import type { TrafficEntry } from '../../plugins/mcp-pin/index.ts'

export type { TrafficEntry }

export interface TrafficPorts {
  post(body: { entries: TrafficEntry[]; dropped: number }): Promise<unknown>
  warn(message: string): void
}

export const TRAFFIC_QUEUE_MAX = 512
const BATCH_MAX = 256

export class TrafficLog {
  readonly #ports: TrafficPorts
  readonly #intervalMs: number
  #queue: TrafficEntry[] = []
  #dropped = 0
  #inFlight: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  #warned = false

  constructor(ports: TrafficPorts, intervalMs = 1000) {
    this.#ports = ports
    this.#intervalMs = intervalMs
  }

  /** Queues one entry (never blocks, never throws); a full queue counts a drop. */
  add(entry: TrafficEntry): void {
    if (this.#queue.length >= TRAFFIC_QUEUE_MAX) {
      this.#dropped++
      return
    }
    this.#queue.push(entry)
    this.#arm()
  }

  #arm(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined
      void this.flush()
    }, this.#intervalMs).unref()
  }

  /** Posts what is queued (one post at a time); resolves when that post settled. */
  flush(): Promise<void> {
    if (this.#inFlight) return this.#inFlight
    if (this.#queue.length === 0 && this.#dropped === 0) return Promise.resolve()
    const entries = this.#queue.splice(0, BATCH_MAX)
    const dropped = this.#dropped
    this.#dropped = 0
    this.#inFlight = this.#ports
      .post({ entries, dropped })
      .then(
        () => undefined,
        (err: Error) => {
          this.#dropped += dropped + entries.length
          if (!this.#warned) this.#ports.warn(`could not record relayed messages with the daemon (${err.message}); relaying goes on, dropped messages are counted`)
          this.#warned = true
        },
      )
      .finally(() => {
        this.#inFlight = undefined
        if (this.#queue.length) this.#arm()
      })
    return this.#inFlight
  }

  /** Entries and drops not yet accepted by the daemon. */
  get pending(): { queued: number; dropped: number } {
    return { queued: this.#queue.length, dropped: this.#dropped }
  }
}

/** The entry for one relayed line (`message` is its parsed JSON, undefined when it was not an object; `refused`: why it was dropped). */
export function trafficEntry(from: TrafficEntry['from'], line: string, message: Record<string, unknown> | undefined, refused?: string): TrafficEntry {
  const base = { at: new Date().toISOString(), from, bytes: Buffer.byteLength(line), ...(refused ? { refused: refused.slice(0, 200) } : {}) }
  if (!message) return { ...base, kind: 'other' }
  // As JSON text: `1` and `"1"` are different requests.
  const id = typeof message.id === 'number' || typeof message.id === 'string' ? JSON.stringify(message.id).slice(0, 128) : undefined
  const withId = id === undefined ? base : { ...base, id }
  if (typeof message.method === 'string') return { ...withId, kind: id === undefined ? 'notification' : 'request', method: message.method.slice(0, 64) }
  return { ...withId, kind: 'error' in message ? 'error' : 'result' in message ? 'response' : 'other' }
}
