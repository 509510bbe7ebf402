/**
 * The exact call behind each decision leaf, kept beside the ledger in `$SVC_HOME/payloads.db` (0600). The leaf
 * commits to it through `payload_hash`, so a stored payload is checkable and cannot be swapped. Retention is by
 * age and total size (defaults: 30 days, 256 MiB); past it only the leaf's hash remains. A payload larger than
 * the per-call cap is never stored. Writes are not fsynced: the ledger, not this file, is the record. Queued rows
 * are written together, at most WRITE_DELAY_MS after the first of them (a transaction costs the check path more
 * than its inserts: one per group commit of the ledger, about five calls under load, was an eighth of the main
 * thread's time per check); every read, and close, writes what is queued first.
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

/** The longest a stored call waits for the transaction that writes it... */
const WRITE_DELAY_MS = 20
/** ...unless this many bytes are queued before then. */
const WRITE_AT_BYTES = 4 * 1024 * 1024

/** Age is pruned at least this often while calls are stored (retention is counted in days). */
const AGE_PRUNE_EVERY_MS = 60_000

type Row = readonly [seq: number, payloadHash: string, body: string, bytes: number, tsMs: number]

/** Opens (or creates, 0600) a payload store. */
export class PayloadStore {
  readonly #db: DatabaseSync
  readonly #retention: Retention
  readonly #put: StatementSync
  readonly #get: StatementSync
  readonly #onError: (err: unknown) => void
  #queued: Row[] = []
  #queuedBytes = 0
  /** Bytes of the stored rows, known after the first prune; a size prune runs only once it passes the limit. */
  #bytes = 0
  #agePrunedAt = 0

  /** `onError` hears of a queued batch that could not be written (it is dropped: the leaves keep their hashes). */
  constructor(path: string, retention: Retention = DEFAULT_RETENTION, opts: { readOnly?: boolean; onError?: (err: unknown) => void } = {}) {
    this.#onError = opts.onError ?? (() => {})
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
    this.#write()
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'origin'").get() as { value: string } | undefined
    if (row?.value === origin) return
    this.#db.exec('DELETE FROM payloads')
    this.#db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('origin', ?)").run(origin)
  }

  /**
   * Stores the canonical bytes of leaf `seq`'s call when they fit the caps; returns whether it will. `body` is
   * what the engine hashed into the leaf's `payloadHash` (one computation, see ledgerAppend), so it is not
   * hashed again on every call: `verifyPayloads` checks every stored row against its leaf. The row is written
   * with the others queued within WRITE_DELAY_MS.
   */
  put(seq: number, payloadHash: string, body: string, tsMs: number): boolean {
    if (this.#retention.maxAgeMs === 0) return false
    const bytes = Buffer.byteLength(body)
    if (bytes > this.#retention.maxPayloadBytes) return false
    if (this.#queued.push([seq, payloadHash, body, bytes, tsMs]) === 1) setTimeout(() => this.#writeReporting(), WRITE_DELAY_MS)
    this.#queuedBytes += bytes
    if (this.#queuedBytes >= WRITE_AT_BYTES) this.#writeReporting()
    return true
  }

  #writeReporting(): void {
    try {
      this.#write()
    } catch (err) {
      this.#onError(err)
    }
  }

  /**
   * Writes the queued rows in one transaction, then prunes when the total passes the size limit or the age was
   * last pruned a minute ago (a prune scans the table: once per few hundred rows it cost more than the inserts).
   */
  #write(): void {
    if (this.#queued.length === 0 || !this.#db.isOpen) return
    const rows = this.#queued
    this.#queued = []
    this.#queuedBytes = 0
    this.#db.exec('BEGIN')
    try {
      for (const row of rows) this.#put.run(...row)
      this.#db.exec('COMMIT')
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
      throw err
    }
    for (const row of rows) this.#bytes += row[3]
    const now = Date.now()
    if (this.#bytes > this.#retention.maxBytes || now - this.#agePrunedAt >= AGE_PRUNE_EVERY_MS) this.prune(now)
  }

  get(seq: number): StoredPayload | undefined {
    this.#write()
    const row = this.#get.get(seq) as { seq: number; payload_hash: string; body: string; ts_ms: number } | undefined
    return row && { seq: Number(row.seq), payloadHash: row.payload_hash, body: row.body, tsMs: Number(row.ts_ms) }
  }

  /** The newest `limit` stored payloads, newest first (replay of a replacement). */
  recent(limit: number): StoredPayload[] {
    this.#write()
    const rows = this.#db.prepare('SELECT seq, payload_hash, body, ts_ms FROM payloads ORDER BY seq DESC LIMIT ?').all(limit) as {
      seq: number
      payload_hash: string
      body: string
      ts_ms: number
    }[]
    return rows.map((r) => ({ seq: Number(r.seq), payloadHash: r.payload_hash, body: r.body, tsMs: Number(r.ts_ms) }))
  }

  /** Every stored payload in seq order (for verification). */
  *all(): Generator<StoredPayload> {
    this.#write()
    for (const row of this.#db.prepare('SELECT seq, payload_hash, body, ts_ms FROM payloads ORDER BY seq').iterate()) {
      const r = row as { seq: number; payload_hash: string; body: string; ts_ms: number }
      yield { seq: Number(r.seq), payloadHash: r.payload_hash, body: r.body, tsMs: Number(r.ts_ms) }
    }
  }

  /**
   * Drops payloads older than the age limit, then the oldest until the total fits 63/64 of the size limit (the
   * slack keeps a full store from being pruned, a table scan, on every write).
   */
  prune(now: number): void {
    this.#write()
    this.#agePrunedAt = now
    this.#db.prepare('DELETE FROM payloads WHERE ts_ms < ?').run(now - this.#retention.maxAgeMs)
    this.#db
      .prepare('DELETE FROM payloads WHERE seq <= (SELECT seq FROM (SELECT seq, SUM(bytes) OVER (ORDER BY seq DESC) AS run FROM payloads) WHERE run > ? ORDER BY seq DESC LIMIT 1)')
      .run(this.#retention.maxBytes - Math.floor(this.#retention.maxBytes / 64))
    this.#bytes = Number((this.#db.prepare('SELECT COALESCE(SUM(bytes), 0) AS total FROM payloads').get() as { total: number | bigint }).total)
  }

  close(): void {
    this.#writeReporting()
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
