/**
 * The exact call behind each decision leaf, kept beside the ledger in `$SVC_HOME/payloads.db` (0600). The leaf
 * commits to it through `payload_hash`, so a stored payload is checkable and cannot be swapped. Retention is by
 * age and total size (defaults: 30 days, 256 MiB); past it only the leaf's hash remains. A payload larger than
 * the per-call cap is never stored. Writes are not fsynced: the ledger, not this file, is the record.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { parseDuration, sha256 } from '../../core/index.ts'

export interface Retention {
  readonly maxAgeMs: number
  readonly maxBytes: number
  readonly maxPayloadBytes: number
}

export const DEFAULT_RETENTION: Retention = { maxAgeMs: 30 * 86_400_000, maxBytes: 256 * 1024 * 1024, maxPayloadBytes: 1024 * 1024 }

/** Reads `SVC_PAYLOAD_RETENTION` (a duration, e.g. `7d`; `0` keeps none) and `SVC_PAYLOAD_MAX_MB` (total size). */
export function retentionFrom(env: Readonly<Record<string, string | undefined>>): Retention {
  const age = env.SVC_PAYLOAD_RETENTION
  const mb = env.SVC_PAYLOAD_MAX_MB
  const maxAgeMs = age === undefined ? DEFAULT_RETENTION.maxAgeMs : age === '0' ? 0 : parseDuration(age)
  if (mb !== undefined && !/^[0-9]{1,7}$/.test(mb)) throw new Error(`SVC_PAYLOAD_MAX_MB must be a whole number of MiB, not "${mb}"`)
  return { ...DEFAULT_RETENTION, maxAgeMs, maxBytes: mb === undefined ? DEFAULT_RETENTION.maxBytes : Number(mb) * 1024 * 1024 }
}

export interface StoredPayload {
  readonly seq: number
  readonly payloadHash: string
  /** Canonical JSON (RFC 8785) of the payload: its SHA-256 is the leaf's payload_hash. */
  readonly body: string
  readonly tsMs: number
}

const PRUNE_EVERY = 256

/** Opens (or creates, 0600) a payload store. */
export class PayloadStore {
  readonly #db: DatabaseSync
  readonly #retention: Retention
  readonly #put: StatementSync
  readonly #get: StatementSync
  #sincePrune = 0

  constructor(path: string, retention: Retention = DEFAULT_RETENTION, opts: { readOnly?: boolean } = {}) {
    if (!opts.readOnly) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      closeSync(openSync(path, 'a', 0o600))
      chmodSync(path, 0o600)
    }
    this.#db = new DatabaseSync(path, { readOnly: opts.readOnly ?? false })
    this.#retention = retention
    if (!opts.readOnly) {
      this.#db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=2000;
        CREATE TABLE IF NOT EXISTS payloads (seq INTEGER PRIMARY KEY, payload_hash TEXT NOT NULL, body TEXT NOT NULL, bytes INTEGER NOT NULL, ts_ms INTEGER NOT NULL) STRICT;
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;`)
      this.prune(Date.now())
    }
    this.#put = this.#db.prepare('INSERT OR REPLACE INTO payloads (seq, payload_hash, body, bytes, ts_ms) VALUES (?, ?, ?, ?, ?)')
    this.#get = this.#db.prepare('SELECT seq, payload_hash, body, ts_ms FROM payloads WHERE seq = ?')
  }

  /** Binds the store to one ledger (its origin): the calls of a replaced ledger (`--new-ledger`) are dropped, since seqs restart. */
  bindLedger(origin: string): void {
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'origin'").get() as { value: string } | undefined
    if (row?.value === origin) return
    this.#db.exec('DELETE FROM payloads')
    this.#db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('origin', ?)").run(origin)
  }

  /** Stores the canonical bytes of leaf `seq`'s call when they hash to `payloadHash` and fit the caps; returns whether it did. */
  put(seq: number, payloadHash: string, body: string, tsMs: number): boolean {
    if (this.#retention.maxAgeMs === 0) return false
    if (sha256(body) !== payloadHash) return false
    const bytes = Buffer.byteLength(body)
    if (bytes > this.#retention.maxPayloadBytes) return false
    this.#put.run(seq, payloadHash, body, bytes, tsMs)
    if (++this.#sincePrune >= PRUNE_EVERY) this.prune(Date.now())
    return true
  }

  get(seq: number): StoredPayload | undefined {
    const row = this.#get.get(seq) as { seq: number; payload_hash: string; body: string; ts_ms: number } | undefined
    return row && { seq: Number(row.seq), payloadHash: row.payload_hash, body: row.body, tsMs: Number(row.ts_ms) }
  }

  /** The newest `limit` stored payloads, newest first (replay of a replacement). */
  recent(limit: number): StoredPayload[] {
    const rows = this.#db.prepare('SELECT seq, payload_hash, body, ts_ms FROM payloads ORDER BY seq DESC LIMIT ?').all(limit) as { seq: number; payload_hash: string; body: string; ts_ms: number }[]
    return rows.map((r) => ({ seq: Number(r.seq), payloadHash: r.payload_hash, body: r.body, tsMs: Number(r.ts_ms) }))
  }

  /** Every stored payload in seq order (for verification). */
  *all(): Generator<StoredPayload> {
    for (const row of this.#db.prepare('SELECT seq, payload_hash, body, ts_ms FROM payloads ORDER BY seq').iterate()) {
      const r = row as { seq: number; payload_hash: string; body: string; ts_ms: number }
      yield { seq: Number(r.seq), payloadHash: r.payload_hash, body: r.body, tsMs: Number(r.ts_ms) }
    }
  }

  /** Drops payloads older than the age limit, then the oldest until the total fits the size limit. */
  prune(now: number): void {
    this.#sincePrune = 0
    this.#db.prepare('DELETE FROM payloads WHERE ts_ms < ?').run(now - this.#retention.maxAgeMs)
    this.#db
      .prepare('DELETE FROM payloads WHERE seq <= (SELECT seq FROM (SELECT seq, SUM(bytes) OVER (ORDER BY seq DESC) AS run FROM payloads) WHERE run > ? ORDER BY seq DESC LIMIT 1)')
      .run(this.#retention.maxBytes)
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close()
  }
}

/** Checks every stored payload against its leaf: its canonical bytes hash to the leaf's payload_hash. */
export function verifyPayloads(store: PayloadStore, leafPayloadHash: (seq: number) => string | undefined): { checked: number; problems: string[] } {
  const problems: string[] = []
  let checked = 0
  for (const p of store.all()) {
    checked++
    const leaf = leafPayloadHash(p.seq)
    if (leaf === undefined) problems.push(`payload of seq ${p.seq}: the ledger has no leaf at that seq`)
    else if (sha256(p.body) !== leaf) problems.push(`payload of seq ${p.seq}: its bytes do not hash to the leaf's payload_hash (altered or swapped)`)
    else if (p.payloadHash !== leaf) problems.push(`payload of seq ${p.seq}: recorded hash differs from the leaf's`)
  }
  return { checked, problems }
}
