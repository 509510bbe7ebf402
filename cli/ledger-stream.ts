/**
 * Reading the ledger from the daemon for the history views (`svc log`, `svc tail`, `svc top`): a newest-first
 * page, the redacted calls behind decision leaves, and following new entries as they are recorded. One
 * follow loop for every command: poll `GET /v1/ledger/entries?after=<seq>` and move `after` to the tree size.
 */
import { callDaemon } from './http.ts'
import { ledgerQuery, type LedgerFilter } from './ledger-filter.ts'

export interface LedgerEntry {
  readonly seq: number
  readonly leaf: {
    readonly ts_ms: number
    readonly type: string
    readonly verdict: string
    readonly source: string
    readonly tool: string
    readonly rule_id: string
    readonly session_id: string
    readonly reason: string
    readonly mode?: string
    readonly signer?: string
    readonly policy_trace?: readonly { layer: string; source: string; verdict: string; rule_id?: string }[]
    readonly [field: string]: unknown
  }
  readonly leaf_hash?: string
}

/** The daemon's redacted summary of the call behind a decision leaf (GET /v1/ledger/calls). */
export interface RedactedCall {
  readonly seq: number
  readonly input: { command?: string; path?: string; url?: string; cwd?: string; tool_input?: unknown }
  readonly redacted: boolean
}

/** A ledger entry with the redacted call behind it, while payload retention keeps it. */
export interface LedgerRecord {
  readonly entry: LedgerEntry
  readonly call?: RedactedCall
}

interface EntriesPage {
  readonly entries: LedgerEntry[]
  readonly tree_size: number
}

/** `entries` with their redacted calls (one request for the page). */
export async function withCalls(url: string, entries: readonly LedgerEntry[]): Promise<LedgerRecord[]> {
  const seqs = entries.filter((e) => e.leaf.type === 'decision').map((e) => e.seq)
  const calls = seqs.length === 0 ? [] : (await callDaemon<{ calls: RedactedCall[] }>(url, `/v1/ledger/calls?seqs=${seqs.join(',')}`)).calls
  const bySeq = new Map(calls.map((c) => [c.seq, c]))
  return entries.map((entry) => ({ entry, call: bySeq.get(entry.seq) }))
}

/** The newest `limit` matching entries (newest first) and the tree size they were read at. */
export async function newestEntries(url: string, filter: LedgerFilter, limit: number): Promise<{ records: LedgerRecord[]; treeSize: number }> {
  const page = await callDaemon<EntriesPage>(url, `/v1/ledger/entries?${ledgerQuery(filter, { order: 'desc', limit: String(Math.min(limit, 1000)) })}`)
  return { records: await withCalls(url, page.entries), treeSize: page.tree_size }
}

export interface FollowOptions {
  readonly intervalMs?: number
  readonly signal?: AbortSignal
}

/**
 * Matching entries recorded after seq `after`, oldest first, batch by batch, until `signal` aborts. A failed
 * poll throws (the caller says the daemon went away); the seq to resume from is the last one yielded.
 */
export async function* followLedger(url: string, filter: LedgerFilter, after: number, opts: FollowOptions = {}): AsyncGenerator<LedgerRecord[]> {
  const { signal } = opts
  let cursor = after
  while (!signal?.aborted) {
    let page: EntriesPage
    try {
      page = await callDaemon<EntriesPage>(url, `/v1/ledger/entries?${ledgerQuery(filter, { after: String(cursor), limit: '1000' })}`, { signal })
    } catch (err) {
      if (signal?.aborted) return
      throw err
    }
    if (page.entries.length > 0) yield await withCalls(url, page.entries)
    // A full page means more are waiting: read on at once, from the last entry read.
    if (page.entries.length === 1000) {
      cursor = page.entries.at(-1)!.seq
      continue
    }
    cursor = Math.max(cursor, page.tree_size - 1)
    await sleep(opts.intervalMs ?? 1000, signal)
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
