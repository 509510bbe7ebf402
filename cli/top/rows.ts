/**
 * The rows of each list view of `svc top`, as plain text (one per line) with a colour: the same rows are
 * filtered by the `/` text filter, drawn by the list component and searched by tests. Every agent- or
 * config-supplied string goes through `inert`; calls come redacted from the daemon, leaf text is redacted here.
 */
import { redactText } from '../../redaction/index.ts'
import { recordSubject } from '../ledger-record-view.ts'
import type { LedgerRecord } from '../ledger-stream.ts'
import { inert } from '../terminal-text.ts'

export interface Row {
  readonly key: string
  readonly text: string
  readonly colour?: 'red' | 'yellow' | 'green' | 'gray'
}

export interface Gate {
  id: string
  source: string
  layer: string
  on_hit: string
  disabled: boolean
  matched_count: number
  last_hit_at: string | null
}

export interface SessionView {
  session_id: string
  signer: string
  state: string
  created_at: string
  expires_at: string
  current?: boolean
  banner?: string
}

export interface Pin {
  server: string
  state: string
  pinned_fingerprint?: string
  pending_fingerprint?: string
  pending_source?: string
  identity: Record<string, unknown>
}

const VERDICT_COLOUR: Record<string, Row['colour']> = { deny: 'red', monitor_alert: 'yellow', allow: 'green' }
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19)
const fp = (f: string | undefined) => (f ? inert(f.replace(/^sha256:/, '').slice(0, 12)) : '-')

export function decisionRows(records: readonly LedgerRecord[], home: string): Row[] {
  return records.map((r) => {
    const { seq, leaf } = r.entry
    const text = `${String(seq).padStart(6)} ${clock(leaf.ts_ms)} ${inert(leaf.verdict).padEnd(13)} ${inert(leaf.source).padEnd(11)} ${inert(leaf.tool).padEnd(8)} ${inert(leaf.rule_id || '-').padEnd(22)} ${recordSubject(r, home)}`
    return { key: String(seq), text, colour: VERDICT_COLOUR[leaf.verdict] }
  })
}

export function gateRows(gates: readonly Gate[], home: string): Row[] {
  // Most hit first, then never hit: what fires, and what may be dead weight.
  return [...gates]
    .sort((a, b) => b.matched_count - a.matched_count || a.id.localeCompare(b.id))
    .map((g) => ({
      key: `${g.source}:${g.id}`,
      text: `${inert(g.id).padEnd(36)} ${inert(g.layer).padEnd(7)} ${inert(g.on_hit).padEnd(13)} ${String(g.matched_count).padStart(6)} hits  last ${g.last_hit_at ? inert(g.last_hit_at.replace('T', ' ').slice(0, 19)) : 'never'.padEnd(19)}  ${g.disabled ? 'DISABLED ' : ''}${inert(redactText(g.source, home).text)}`,
      colour: g.disabled ? 'gray' : g.matched_count === 0 ? undefined : g.on_hit === 'deny' ? 'red' : 'yellow',
    }))
}

export function sessionRows(sessions: readonly SessionView[], counts: ReadonlyMap<string, { allow: number; deny: number; monitor_alert: number }>): Row[] {
  return sessions.map((s) => {
    const c = counts.get(s.session_id)
    const tally = c ? `allow ${c.allow} deny ${c.deny} alert ${c.monitor_alert}` : ''
    return {
      key: s.session_id,
      text: `${s.current ? '*' : ' '} ${inert(s.session_id).padEnd(28)} ${inert(s.state).padEnd(8)} ${inert(s.signer).padEnd(12)} expires ${inert(s.expires_at.slice(0, 19).replace('T', ' '))}  ${tally}${s.banner ? `  ${inert(s.banner)}` : ''}`,
      colour: s.state !== 'active' ? 'gray' : s.banner ? (s.signer === 'totp' ? 'yellow' : 'red') : 'green',
    }
  })
}

export function pinRows(pins: readonly Pin[]): Row[] {
  return pins.map((p) => {
    const waiting = p.pending_fingerprint ? (p.state === 'pinned' ? `CHANGED -> ${fp(p.pending_fingerprint)}` : `queued ${fp(p.pending_fingerprint)}`) : ''
    return {
      key: p.server,
      text: `${inert(p.server).padEnd(24)} ${inert(p.state).padEnd(9)} pinned ${fp(p.pinned_fingerprint).padEnd(12)} ${waiting.padEnd(28)} ${inert(JSON.stringify(p.identity))}`,
      colour: p.pending_fingerprint ? 'yellow' : p.state === 'pinned' ? 'green' : undefined,
    }
  })
}

export function ledgerRows(records: readonly LedgerRecord[], home: string): Row[] {
  return records.map((r) => {
    const { seq, leaf } = r.entry
    return {
      key: String(seq),
      text: `${String(seq).padStart(6)} ${clock(leaf.ts_ms)} ${inert(leaf.type).padEnd(16)} ${inert(leaf.verdict ?? '').padEnd(13)} ${inert((r.entry.leaf_hash ?? '').slice(0, 16))}  ${recordSubject(r, home)}`,
    }
  })
}

/** The rows containing `needle` (case-insensitive); all rows when it is empty. */
export function filterRows(rows: readonly Row[], needle: string): Row[] {
  if (!needle) return [...rows]
  const n = needle.toLowerCase()
  return rows.filter((r) => r.text.toLowerCase().includes(n))
}
