/**
 * Per-session activity for dashboards (`GET /v1/sessions/insights`): counts of allow / deny /
 * monitor_alert decisions, and the most frequent rules and tools, aggregated in SQLite from the
 * indexed leaf columns (never by re-reading leaf bodies).
 */
import type { LedgerStore } from '../../core/ledger/store.ts'

export interface SessionInsight {
  readonly session_id: string
  readonly counts: { allow: number; deny: number; monitor_alert: number; ran: number; tool_errored: number }
  readonly top_rules: { rule_id: string; count: number }[]
  readonly top_tools: { tool: string; count: number }[]
  readonly first_ms: number
  readonly last_ms: number
}

const DECISIONS = ['allow', 'deny', 'monitor_alert', 'ran', 'tool_errored'] as const

/** Aggregates every session (or only `sessionId`), keeping the `top` most frequent rules and tools. */
export function sessionInsights(store: LedgerStore, options: { sessionId?: string; top?: number } = {}): SessionInsight[] {
  const top = options.top ?? 5
  const where = options.sessionId === undefined ? '' : 'WHERE session_id = ?'
  const args = options.sessionId === undefined ? [] : [options.sessionId]
  const byVerdict = store.db
    .prepare(`SELECT session_id, verdict, COUNT(*) AS n, MIN(ts_ms) AS first, MAX(ts_ms) AS last FROM leaves ${where} GROUP BY session_id, verdict`)
    .all(...args) as { session_id: string; verdict: string; n: number; first: number; last: number }[]
  const insights = new Map<string, SessionInsight>()
  for (const row of byVerdict) {
    let s = insights.get(row.session_id)
    if (!s) {
      s = {
        session_id: row.session_id,
        counts: { allow: 0, deny: 0, monitor_alert: 0, ran: 0, tool_errored: 0 },
        top_rules: [],
        top_tools: [],
        first_ms: Number(row.first),
        last_ms: Number(row.last),
      }
      insights.set(row.session_id, s)
    }
    if ((DECISIONS as readonly string[]).includes(row.verdict)) s.counts[row.verdict as (typeof DECISIONS)[number]] = Number(row.n)
    Object.assign(s, { first_ms: Math.min(s.first_ms, Number(row.first)), last_ms: Math.max(s.last_ms, Number(row.last)) })
  }
  const ranked = (column: 'rule_id' | 'tool', extra: string) =>
    store.db
      .prepare(
        `SELECT session_id, ${column} AS k, n FROM (SELECT session_id, ${column}, COUNT(*) AS n,
           ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY COUNT(*) DESC, ${column}) AS r
         FROM leaves WHERE ${column} != '' ${extra} ${where ? `AND session_id = ?` : ''} GROUP BY session_id, ${column}) WHERE r <= ?`,
      )
      .all(...args, top) as { session_id: string; k: string; n: number }[]
  for (const row of ranked('rule_id', '')) insights.get(row.session_id)?.top_rules.push({ rule_id: row.k, count: Number(row.n) })
  for (const row of ranked('tool', "AND verdict IN ('allow', 'deny', 'monitor_alert')")) insights.get(row.session_id)?.top_tools.push({ tool: row.k, count: Number(row.n) })
  return [...insights.values()].sort((a, b) => b.last_ms - a.last_ms)
}
