/**
 * Small persistent daemon state beside the ledger: the sealed outer mode row (see mode-record.ts) and
 * per-gate hit counters. Counters are kept in memory on the hot path and flushed once a second and at
 * shutdown; the ledger, not this table, is the record of what happened. A flush that fails (disk full, a
 * locked file) is logged and retried on the next tick: it never takes the daemon down.
 */
import { DatabaseSync } from 'node:sqlite'
import type { ModeRow } from './mode-record.ts'

export interface GateStats {
  readonly matched: number
  readonly lastHitAt?: number
}

const FLUSH_MS = 1000

/** `state.db`: the daemon mode and per-gate hit counters (counters buffered in memory, flushed periodically). */
export class StateDb {
  readonly #db: DatabaseSync
  readonly #stats = new Map<string, { matched: number; lastHitAt?: number; dirty: boolean }>()
  readonly #timer: NodeJS.Timeout
  readonly #onFlushError: (err: unknown) => void
  #failing = false

  constructor(path: string, onFlushError: (err: unknown) => void = () => {}) {
    this.#onFlushError = onFlushError
    this.#db = new DatabaseSync(path)
    this.#db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
      CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS gate_stats (gate_key TEXT PRIMARY KEY, matched INTEGER NOT NULL, last_hit_at INTEGER);`)
    for (const row of this.#db.prepare('SELECT gate_key, matched, last_hit_at FROM gate_stats').all() as { gate_key: string; matched: number; last_hit_at: number | null }[]) {
      this.#stats.set(row.gate_key, { matched: row.matched, lastHitAt: row.last_hit_at ?? undefined, dirty: false })
    }
    this.#timer = setInterval(() => this.flush(), FLUSH_MS)
    this.#timer.unref()
  }

  /** The stored mode row; `value` is the mode, `mode_seal` the JSON {seq, seal} svc wrote beside it. */
  modeRow(): ModeRow | undefined {
    const rows = this.#db.prepare("SELECT key, value FROM settings WHERE key IN ('mode', 'mode_seal')").all() as { key: string; value: string }[]
    const mode = rows.find((r) => r.key === 'mode')?.value
    if (mode === undefined) return undefined
    let sealed: { seq?: unknown; seal?: unknown } = {}
    try {
      sealed = JSON.parse(rows.find((r) => r.key === 'mode_seal')?.value ?? '{}') as typeof sealed
    } catch {
      // an unreadable seal is no seal
    }
    return { mode, ...(typeof sealed.seq === 'number' ? { seq: sealed.seq } : {}), ...(typeof sealed.seal === 'string' ? { seal: sealed.seal } : {}) }
  }

  /** Throws (storage unavailable) unless state.db can take a write now: checked before a mode change is ledgered. */
  assertWritable(): void {
    this.#db.exec('BEGIN IMMEDIATE')
    this.#db.exec('ROLLBACK')
  }

  setModeRow(row: ModeRow): void {
    const upsert = this.#db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      upsert.run('mode', row.mode)
      upsert.run('mode_seal', JSON.stringify({ seq: row.seq, seal: row.seal }))
      this.#db.exec('COMMIT')
    } catch (err) {
      this.#rollback()
      throw err
    }
  }

  /** Whether guardrail evaluators run (on unless an operator switched them off). */
  getGuardrailsEnabled(): boolean {
    const row = this.#db.prepare("SELECT value FROM settings WHERE key = 'guardrails_enabled'").get() as { value: string } | undefined
    return row?.value !== 'false'
  }

  setGuardrailsEnabled(enabled: boolean): void {
    this.#db.prepare("INSERT INTO settings (key, value) VALUES ('guardrails_enabled', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(String(enabled))
  }

  /** Counts one hit of a gate (keyed by source and id). */
  recordHit(gateKey: string, at: number): void {
    const s = this.#stats.get(gateKey) ?? { matched: 0, dirty: true }
    s.matched++
    s.lastHitAt = at
    s.dirty = true
    this.#stats.set(gateKey, s)
  }

  stats(gateKey: string): GateStats {
    const s = this.#stats.get(gateKey)
    return { matched: s?.matched ?? 0, lastHitAt: s?.lastHitAt }
  }

  /** Writes dirty counters; false (counters stay dirty for the next try) when storage refuses. */
  flush(): boolean {
    const dirty = [...this.#stats].filter(([, s]) => s.dirty)
    if (dirty.length === 0) return true
    try {
      const upsert = this.#db.prepare(
        'INSERT INTO gate_stats (gate_key, matched, last_hit_at) VALUES (?, ?, ?) ON CONFLICT(gate_key) DO UPDATE SET matched = excluded.matched, last_hit_at = excluded.last_hit_at',
      )
      this.#db.exec('BEGIN IMMEDIATE')
      for (const [key, s] of dirty) upsert.run(key, s.matched, s.lastHitAt ?? null)
      this.#db.exec('COMMIT')
    } catch (err) {
      this.#rollback()
      // Reported once per outage, not once a second.
      if (!this.#failing) this.#onFlushError(err)
      this.#failing = true
      return false
    }
    for (const [, s] of dirty) s.dirty = false
    this.#failing = false
    return true
  }

  #rollback(): void {
    try {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK')
    } catch {
      // nothing more to undo
    }
  }

  close(): void {
    clearInterval(this.#timer)
    this.flush()
    try {
      this.#db.close()
    } catch {
      // already closed
    }
  }
}

/** The key gate counters are stored under: a gate id is unique only within its source. */
export function gateKey(source: string, id: string): string {
  return `${source}#${id}`
}
