/**
 * What `svc mcp-proxy` relayed without a verdict, as its relays report it (POST /v1/mcp/proxy/log): per server,
 * the last entries (method, id, direction, size; never contents) in a bounded ring, message counts by method, and
 * the drops relays reported. Kept in the daemon's memory, not the ledger: it is diagnostic traffic a relay
 * reports of itself, high in volume and not a decision, so it must neither grow the signed ledger per message nor
 * outlive a restart. GET /v1/mcp/traffic and `svc mcp log <server>` read it.
 */
export interface TrafficEntry {
  readonly at: string
  /** Who sent it: the client (harness) or the server. */
  readonly from: 'client' | 'server'
  readonly kind: 'request' | 'notification' | 'response' | 'error' | 'other'
  readonly method?: string
  /** The JSON-RPC id as JSON text (`1`, `"a"`). */
  readonly id?: string
  readonly bytes: number
  /** Why the relay dropped it instead of passing it (an unsolicited answer, a line it could not read, …). */
  readonly refused?: string
}

export interface ServerTraffic {
  readonly server: string
  received: number
  dropped: number
  last_at?: string
  readonly by_method: Record<string, number>
  readonly entries: TrafficEntry[]
}

export const TRAFFIC_RING = 500
const MAX_SERVERS = 256
const MAX_METHODS = 128

export class TrafficRecord {
  readonly #servers = new Map<string, ServerTraffic>()

  add(server: string, entries: readonly TrafficEntry[], dropped: number): void {
    let t = this.#servers.get(server)
    if (!t) {
      if (this.#servers.size >= MAX_SERVERS) this.#servers.delete(this.#servers.keys().next().value!)
      t = { server, received: 0, dropped: 0, by_method: Object.create(null) as Record<string, number>, entries: [] }
      this.#servers.set(server, t)
    }
    t.received += entries.length
    t.dropped += dropped
    for (const e of entries) {
      const method = e.method ?? `(${e.kind})`
      // Null prototype: a method named `__proto__` is just a name.
      if (Object.hasOwn(t.by_method, method) || Object.keys(t.by_method).length < MAX_METHODS) t.by_method[method] = (t.by_method[method] ?? 0) + 1
    }
    t.entries.push(...entries)
    if (t.entries.length > TRAFFIC_RING) t.entries.splice(0, t.entries.length - TRAFFIC_RING)
    t.last_at = new Date().toISOString()
  }

  get(server: string): ServerTraffic | undefined {
    return this.#servers.get(server)
  }

  list(): ServerTraffic[] {
    return [...this.#servers.values()]
  }
}

const records = new WeakMap<object, TrafficRecord>()

/** The one record of a daemon (keyed by its engine), shared by the relay's route and the read route. */
export function trafficOf(engine: object): TrafficRecord {
  let r = records.get(engine)
  if (!r) records.set(engine, (r = new TrafficRecord()))
  return r
}
