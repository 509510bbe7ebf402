/**
 * Filtered reads of committed leaves for history views (`GET /v1/ledger/entries`, `svc log`): by verdict,
 * rule, session, harness (source), tool and time, ascending after a seq or newest first before one. Reads
 * only the indexed leaf columns and the leaf body; never writes.
 */
import type { DatabaseSync } from 'node:sqlite'

export interface LeafFilter {
  readonly verdicts?: readonly string[]
  readonly rule?: string
  readonly session?: string
  readonly source?: string
  readonly tool?: string
  readonly sinceMs?: number
  readonly untilMs?: number
}

export interface LeafPage {
  /** Ascending: seq > from. Descending: seq < from (undefined: from the newest). */
  readonly from?: number
  readonly order: 'asc' | 'desc'
  readonly limit: number
  /** Only leaves below this seq are committed. */
  readonly size: number
}

export interface QueriedLeaf {
  readonly seq: number
  readonly body: string
  readonly leafHash: Buffer
  readonly sig: Buffer | null
}

/** Leaves matching `filter`, one page in `page.order`. */
export function queryLeaves(db: DatabaseSync, filter: LeafFilter, page: LeafPage): QueriedLeaf[] {
  const where: string[] = ['seq < ?']
  const args: (string | number)[] = [page.size]
  if (filter.verdicts?.length) {
    where.push(`verdict IN (${filter.verdicts.map(() => '?').join(', ')})`)
    args.push(...filter.verdicts)
  }
  const eq = (column: string, value: string | undefined) => {
    if (value === undefined) return
    where.push(`${column} = ?`)
    args.push(value)
  }
  eq('rule_id', filter.rule)
  eq('session_id', filter.session)
  eq('tool', filter.tool)
  eq("json_extract(body, '$.source')", filter.source)
  if (filter.sinceMs !== undefined) {
    where.push('ts_ms >= ?')
    args.push(filter.sinceMs)
  }
  if (filter.untilMs !== undefined) {
    where.push('ts_ms <= ?')
    args.push(filter.untilMs)
  }
  if (page.from !== undefined) {
    where.push(page.order === 'asc' ? 'seq > ?' : 'seq < ?')
    args.push(page.from)
  }
  const sql = `SELECT seq, body, leaf_hash, sig FROM leaves WHERE ${where.join(' AND ')} ORDER BY seq ${page.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`
  const rows = db.prepare(sql).all(...args, page.limit) as { seq: number; body: string; leaf_hash: Uint8Array; sig: Uint8Array | null }[]
  return rows.map((r) => ({ seq: Number(r.seq), body: r.body, leafHash: Buffer.from(r.leaf_hash), sig: r.sig ? Buffer.from(r.sig) : null }))
}
