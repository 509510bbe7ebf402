/**
 * Hits per gate for dashboards (`GET /v1/gates/stats`): decisions that named a gate over the last 24 hours,
 * 7 days and 30 days, split by verdict, and the last hit, aggregated in SQLite from the indexed leaf columns.
 * Unlike the persisted counters of `GET /v1/gates`, these come from the signed ledger itself.
 */
import type { LedgerStore } from '../../core/ledger/store.ts'

export interface GateStats {
  readonly rule_id: string
  readonly hits_24h: number
  readonly hits_7d: number
  readonly hits_30d: number
  /** Verdicts over the last 30 days. */
  readonly verdicts: { allow: number; deny: number; monitor_alert: number }
  readonly last_hit_ms: number
}

const DAY_MS = 24 * 60 * 60 * 1000

export function gateStats(store: LedgerStore, nowMs: number): GateStats[] {
  const rows = store.db
    .prepare(
      `SELECT rule_id, verdict, SUM(ts_ms >= ?) AS d1, SUM(ts_ms >= ?) AS d7, COUNT(*) AS d30, MAX(ts_ms) AS last
       FROM leaves WHERE rule_id != '' AND ts_ms >= ? AND verdict IN ('allow', 'deny', 'monitor_alert') GROUP BY rule_id, verdict`,
    )
    .all(nowMs - DAY_MS, nowMs - 7 * DAY_MS, nowMs - 30 * DAY_MS) as {
    rule_id: string
    verdict: 'allow' | 'deny' | 'monitor_alert'
    d1: number
    d7: number
    d30: number
    last: number
  }[]
  const byGate = new Map<string, { -readonly [K in keyof GateStats]: GateStats[K] }>()
  for (const r of rows) {
    let s = byGate.get(r.rule_id)
    if (!s) byGate.set(r.rule_id, (s = { rule_id: r.rule_id, hits_24h: 0, hits_7d: 0, hits_30d: 0, verdicts: { allow: 0, deny: 0, monitor_alert: 0 }, last_hit_ms: 0 }))
    s.hits_24h += Number(r.d1)
    s.hits_7d += Number(r.d7)
    s.hits_30d += Number(r.d30)
    s.verdicts[r.verdict] = Number(r.d30)
    s.last_hit_ms = Math.max(s.last_hit_ms, Number(r.last))
  }
  return [...byGate.values()].sort((a, b) => b.hits_30d - a.hits_30d || a.rule_id.localeCompare(b.rule_id))
}
