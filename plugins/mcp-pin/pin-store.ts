/**
 * The MCP pin store, `$SVC_HOME/mcp-pins.json`, written atomically: the one place pins live, and the
 * one place fingerprints are computed (`fingerprint()` of identity and tool list). Each server name moves
 * unseen → queued (first sighting) → pinned (operator accept). A pinned server seen with another
 * fingerprint is a mismatch: the new fingerprint waits as `pending` until an operator accepts it.
 *
 * What waits is what the operator reviews, so only an operator's sighting replaces it; anyone else's
 * different sighting is kept beside it as `latest`. An accept names the exact fingerprint it pins (the
 * pending or the latest one); any other is a 409. A reject marks the reviewed fingerprint rejected: its calls stay
 * denied with a reason naming the rejection until an accept pins one (which clears it). A caller that cannot see the tool list (the hook path)
 * is compared under the tool list that was pinned, so a server pinned with its tools stays pinned.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RefusalError, writePrivateFile } from '../../core/index.ts'
import { fingerprint, type McpToolInfo, type ServerIdentity } from './fingerprint.ts'

export type PinState = 'queued' | 'pinned' | 'mismatch'

/** One sighting of a server: what it was and, when the caller knew it, its tool list. */
export interface Sighting {
  readonly fingerprint: string
  readonly identity: ServerIdentity
  readonly tools?: readonly McpToolInfo[]
  readonly source: string
  readonly at: string
}

export interface PinRecord {
  readonly server: string
  readonly state: 'queued' | 'pinned'
  /** The accepted fingerprint (pinned servers). */
  readonly pinned?: { readonly fingerprint: string; readonly identity: ServerIdentity; readonly tools?: readonly McpToolInfo[]; readonly at: string }
  /** The fingerprint waiting for an operator: the first sighting, or a changed server (replaced only by an operator). */
  readonly pending?: Sighting
  /** The most recent sighting that differs from `pending`, from a caller without operator rights. */
  readonly latest?: Sighting
  /** An operator rejected this waiting fingerprint: its calls stay denied, with that reason, until one is accepted. */
  readonly rejected?: { readonly fingerprint: string; readonly who: string; readonly at: string }
  /** The tool list the server last served through `svc mcp-proxy` (what its calls are checked against, tool by tool). */
  readonly served?: ServedTools
  readonly firstSeen: string
  readonly lastSeen: string
}

/**
 * A server's tools as the proxy last saw them in `tools/list` (every page). `stale` from
 * `notifications/tools/list_changed` until a fresh complete list arrives; `partial` while a listing's pages come in.
 */
export interface ServedTools {
  readonly identity: ServerIdentity
  readonly tools: readonly McpToolInfo[]
  readonly fingerprint?: string
  readonly stale: boolean
  readonly partial: boolean
  readonly at: string
}

export interface CheckOptions {
  /** The caller knows the server's tool list (undefined: compare under the tool list on record). */
  readonly tools?: readonly McpToolInfo[]
  /** An operator's sighting may replace the fingerprint waiting for review. */
  readonly operator?: boolean
  readonly now?: Date
}

export interface PinCheck {
  readonly server: string
  readonly state: PinState
  readonly fingerprint: string
  readonly pinnedFingerprint?: string
  /** True when this check created the record (the first sighting). */
  readonly firstSighting: boolean
  /** An operator rejected exactly this fingerprint. */
  readonly rejected?: boolean
}

/** An accept that cannot happen (nothing queued, or not the fingerprint the operator reviewed). */
export class PinAcceptError extends RefusalError {
  constructor(status: 404 | 409, message: string) {
    super(status, status === 404 ? 'not_found' : 'conflict', message)
  }
}

interface PinFile {
  readonly version: 1
  readonly servers: Readonly<Record<string, PinRecord>>
}

/** Reads the file on every operation: the daemon's plugin and routes share it without a cache to diverge. */
export class PinStore {
  readonly path: string

  constructor(svcHome: string) {
    this.path = join(svcHome, 'mcp-pins.json')
  }

  #read(): PinFile {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch {
      return { version: 1, servers: {} }
    }
    const parsed = JSON.parse(text) as PinFile
    if (parsed?.version !== 1 || typeof parsed.servers !== 'object') throw new Error(`${this.path} is not an svc pin file`)
    return parsed
  }

  #save(servers: Readonly<Record<string, PinRecord>>): void {
    writePrivateFile(this.path, `${JSON.stringify({ version: 1, servers }, null, 2)}\n`)
  }

  list(): PinRecord[] {
    return Object.values(this.#read().servers).sort((a, b) => (a.server < b.server ? -1 : 1))
  }

  get(server: string): PinRecord | undefined {
    return this.#read().servers[server]
  }

  /** Checks a sighting of `server` (fingerprinted here), queueing it when it is new or changed. */
  check(server: string, identity: ServerIdentity, source: string, opts: CheckOptions = {}): PinCheck {
    const at = (opts.now ?? new Date()).toISOString()
    const servers = { ...this.#read().servers }
    const record = servers[server]
    const fp = (toolsOnRecord?: readonly McpToolInfo[]) => fingerprint(identity, opts.tools ?? toolsOnRecord)
    const sighting = (fingerprint: string, tools?: readonly McpToolInfo[]): Sighting => ({ fingerprint, identity, ...(tools ? { tools } : {}), source, at })
    if (!record) {
      const seen = fp()
      servers[server] = { server, state: 'queued', pending: sighting(seen, opts.tools), firstSeen: at, lastSeen: at }
      this.#save(servers)
      return { server, state: 'queued', fingerprint: seen, firstSighting: true }
    }
    const asPinned = fp(record.pinned?.tools)
    if (record.state === 'pinned' && record.pinned?.fingerprint === asPinned) {
      return { server, state: 'pinned', fingerprint: asPinned, pinnedFingerprint: asPinned, firstSighting: false }
    }
    const seen = record.pending ? fp(record.pending.tools) : asPinned
    const tools = opts.tools ?? (record.pending ? record.pending.tools : record.pinned?.tools)
    let next: PinRecord | undefined
    if (!record.pending || (opts.operator && record.pending.fingerprint !== seen)) next = { ...record, pending: sighting(seen, tools), latest: undefined, lastSeen: at }
    else if (record.pending.fingerprint !== seen && record.latest?.fingerprint !== seen) next = { ...record, latest: sighting(seen, tools), lastSeen: at }
    if (next) {
      servers[server] = next
      this.#save(servers)
    }
    const rejected = record.rejected?.fingerprint === seen ? { rejected: true } : {}
    if (record.state === 'queued') return { server, state: 'queued', fingerprint: seen, firstSighting: false, ...rejected }
    return { server, state: 'mismatch', fingerprint: seen, pinnedFingerprint: record.pinned?.fingerprint, firstSighting: false, ...rejected }
  }

  /**
   * Records one page of a `tools/list` the proxy relayed: `first` starts a fresh listing, `last` completes it,
   * clears `stale` and checks the whole list as a sighting (a new or changed set waits for an operator).
   */
  recordServed(server: string, identity: ServerIdentity, page: readonly McpToolInfo[], opts: { first: boolean; last: boolean; now?: Date }): PinRecord {
    const at = (opts.now ?? new Date()).toISOString()
    const servers = { ...this.#read().servers }
    const record: PinRecord = servers[server] ?? { server, state: 'queued', firstSeen: at, lastSeen: at }
    const earlier = opts.first || !record.served ? [] : record.served.tools
    const byName = new Map(earlier.map((t) => [t.name, t]))
    for (const tool of page) byName.set(tool.name, tool)
    const tools = [...byName.values()]
    const stale = (record.served?.stale ?? false) && !opts.last
    servers[server] = { ...record, served: { identity, tools, stale, partial: !opts.last, at }, lastSeen: at }
    this.#save(servers)
    if (!opts.last) return servers[server]!
    const check = this.check(server, identity, 'mcp-proxy', { tools, now: opts.now })
    const after = this.#read().servers[server]!
    const done: PinRecord = { ...after, served: { ...after.served!, fingerprint: check.fingerprint } }
    this.#save({ ...this.#read().servers, [server]: done })
    return done
  }

  /** `notifications/tools/list_changed`: calls wait until a fresh list is verified. */
  markStale(server: string, now = new Date()): void {
    const servers = { ...this.#read().servers }
    const record = servers[server]
    // Already stale: nothing to write (a server repeating list_changed costs the daemon no disk write).
    if (!record?.served || record.served.stale) return
    servers[server] = { ...record, served: { ...record.served, stale: true, at: now.toISOString() } }
    this.#save(servers)
  }

  /** The waiting sighting an operator reviewed (pending or latest): exactly `expected`, else a refusal naming what waits. */
  #waiting(servers: Readonly<Record<string, PinRecord>>, server: string, expected: string, verb: 'accept' | 'reject'): { record: PinRecord; chosen: Sighting } {
    const record = servers[server]
    if (!record) throw new PinAcceptError(404, `no MCP server named "${server}" has been seen; nothing to ${verb}`)
    if (!record.pending) throw new PinAcceptError(409, `MCP server "${server}" is already pinned and unchanged; nothing to ${verb}`)
    const chosen = [record.pending, record.latest].find((s) => s?.fingerprint === expected)
    if (!chosen) {
      const waiting = [record.pending, record.latest]
        .filter((s) => s !== undefined)
        .map((s) => s.fingerprint)
        .join(' or ')
      throw new PinAcceptError(409, `MCP server "${server}" now waits with fingerprint ${waiting}, not the ${expected} you reviewed; check it again`)
    }
    return { record, chosen }
  }

  /** Operator reject: marks exactly `expected` (pending or latest) rejected; it stays waiting, so a later accept undoes it. */
  reject(server: string, expected: string, who: string, now = new Date()): PinRecord {
    const servers = { ...this.#read().servers }
    const { record, chosen } = this.#waiting(servers, server, expected, 'reject')
    const rejected: PinRecord = { ...record, rejected: { fingerprint: chosen.fingerprint, who, at: now.toISOString() } }
    servers[server] = rejected
    this.#save(servers)
    return rejected
  }

  /** Operator accept: pins exactly `expected`, which must be the pending (or latest) fingerprint. */
  accept(server: string, expected: string, now = new Date()): PinRecord {
    const servers = { ...this.#read().servers }
    const { record, chosen } = this.#waiting(servers, server, expected, 'accept')
    const at = now.toISOString()
    const pinned: PinRecord = {
      server,
      state: 'pinned',
      pinned: { fingerprint: chosen.fingerprint, identity: chosen.identity, ...(chosen.tools ? { tools: chosen.tools } : {}), at },
      ...(record.served ? { served: record.served } : {}),
      firstSeen: record.firstSeen,
      lastSeen: record.lastSeen,
    }
    servers[server] = pinned
    this.#save(servers)
    return pinned
  }
}
