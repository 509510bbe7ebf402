/**
 * The MCP pin store, `$SVC_HOME/mcp-pins.json`, written atomically. Each server name moves
 * unseen → queued (first sighting) → pinned (operator accept). A pinned server seen with another
 * fingerprint is a mismatch: the new fingerprint waits as `pending` until an operator accepts it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RefusalError, writePrivateFile } from '../../core/index.ts'
import type { ServerIdentity } from './fingerprint.ts'

export type PinState = 'queued' | 'pinned' | 'mismatch'

export interface PinRecord {
  readonly server: string
  readonly state: 'queued' | 'pinned'
  /** The accepted fingerprint (pinned servers). */
  readonly pinned?: { readonly fingerprint: string; readonly identity: ServerIdentity; readonly at: string }
  /** The fingerprint waiting for an operator: the first sighting, or a changed server. */
  readonly pending?: { readonly fingerprint: string; readonly identity: ServerIdentity; readonly source: string; readonly at: string }
  readonly firstSeen: string
  readonly lastSeen: string
}

export interface PinCheck {
  readonly server: string
  readonly state: PinState
  readonly fingerprint: string
  readonly pinnedFingerprint?: string
  /** True when this check created the record (the first sighting). */
  readonly firstSighting: boolean
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

  /** Checks a sighting of `server` with `fingerprint`, queueing it when it is new or changed. */
  check(server: string, fingerprint: string, identity: ServerIdentity, source: string, now = new Date()): PinCheck {
    const at = now.toISOString()
    const servers = { ...this.#read().servers }
    const record = servers[server]
    if (!record) {
      servers[server] = { server, state: 'queued', pending: { fingerprint, identity, source, at }, firstSeen: at, lastSeen: at }
      this.#save(servers)
      return { server, state: 'queued', fingerprint, firstSighting: true }
    }
    if (record.state === 'pinned' && record.pinned?.fingerprint === fingerprint) {
      return { server, state: 'pinned', fingerprint, pinnedFingerprint: fingerprint, firstSighting: false }
    }
    if (record.pending?.fingerprint !== fingerprint) {
      servers[server] = { ...record, pending: { fingerprint, identity, source, at }, lastSeen: at }
      this.#save(servers)
    }
    if (record.state === 'queued') return { server, state: 'queued', fingerprint, firstSighting: false }
    return { server, state: 'mismatch', fingerprint, pinnedFingerprint: record.pinned?.fingerprint, firstSighting: false }
  }

  /** Operator accept: the pending fingerprint becomes the pinned one (optionally only if it is `expected`). */
  accept(server: string, expected?: string, now = new Date()): PinRecord {
    const servers = { ...this.#read().servers }
    const record = servers[server]
    if (!record) throw new PinAcceptError(404, `no MCP server named "${server}" has been seen; nothing to accept`)
    if (!record.pending) throw new PinAcceptError(409, `MCP server "${server}" is already pinned and unchanged; nothing to accept`)
    if (expected !== undefined && expected !== record.pending.fingerprint) {
      throw new PinAcceptError(409, `MCP server "${server}" now has fingerprint ${record.pending.fingerprint}, not the ${expected} you reviewed; check it again`)
    }
    const at = now.toISOString()
    const pinned: PinRecord = {
      server,
      state: 'pinned',
      pinned: { fingerprint: record.pending.fingerprint, identity: record.pending.identity, at },
      firstSeen: record.firstSeen,
      lastSeen: record.lastSeen,
    }
    servers[server] = pinned
    this.#save(servers)
    return pinned
  }
}
