/**
 * Small persistent daemon state beside the ledger: the outer mode and per-gate hit counters.
 * Counters are kept in memory on the hot path and flushed once a second and at shutdown; the ledger,
 * not this table, is the record of what happened.
 */
import { DatabaseSync } from 'node:sqlite'
import type { Mode } from '../types.ts'

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

  constructor(path: string) {
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

  getMode(): Mode {
    const row = this.#db.prepare("SELECT value FROM settings WHERE key = 'mode'").get() as { value: string } | undefined
    return row?.value === 'monitor' ? 'monitor' : 'firewall'
  }

  setMode(mode: Mode): void {
    this.#db.prepare("INSERT INTO settings (key, value) VALUES ('mode', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(mode)
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

  flush(): void {
    const dirty = [...this.#stats].filter(([, s]) => s.dirty)
    if (dirty.length === 0) return
    const upsert = this.#db.prepare('INSERT INTO gate_stats (gate_key, matched, last_hit_at) VALUES (?, ?, ?) ON CONFLICT(gate_key) DO UPDATE SET matched = excluded.matched, last_hit_at = excluded.last_hit_at')
    this.#db.exec('BEGIN')
    for (const [key, s] of dirty) {
      upsert.run(key, s.matched, s.lastHitAt ?? null)
      s.dirty = false
    }
    this.#db.exec('COMMIT')
  }

  close(): void {
    clearInterval(this.#timer)
    this.flush()
    this.#db.close()
  }
}

/** The key gate counters are stored under: a gate id is unique only within its source. */
export function gateKey(source: string, id: string): string {
  return `${source}#${id}`
}
