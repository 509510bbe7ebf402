/**
 * The append-only decision ledger in SQLite (WAL, synchronous=FULL): one leaf per gate check, outcome
 * row or session event. `append` resolves only once the row is durable, so a verdict is never returned
 * for a decision the ledger could lose.
 */
import { createHash } from 'node:crypto'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import canonicalize from 'canonicalize'
import type { LedgerDraft, LedgerEntry } from '../types.ts'

/** Signs a leaf hash with the session key; undefined for unattested sessions. */
export type LeafSigner = (leafHash: Buffer) => string | undefined

export interface Ledger {
  append(draft: LedgerDraft, sign?: LeafSigner): Promise<LedgerEntry>
  get(seq: number): LedgerEntry | undefined
  size(): number
  close(): void
}

const ZERO_HASH = '0'.repeat(64)

/** The leaf fields that are hashed (JCS), in the spec's ledger-entry vocabulary. */
export function leafOf(seq: number, draft: LedgerDraft, prevLeafHash: string): Record<string, unknown> {
  return {
    seq,
    kind: draft.kind,
    at: draft.at,
    session_id: draft.sessionId,
    signer: draft.signer,
    source: draft.source,
    tool: draft.tool,
    verdict: draft.verdict,
    monitor_match: draft.monitorMatch,
    rule_id: draft.ruleId,
    tool_use_id: draft.toolUseId,
    policy_trace: draft.policyTrace,
    payload_hash: draft.payloadHash,
    reason: draft.reason,
    parent_seq: draft.parentSeq ?? null,
    prev_leaf_hash: prevLeafHash,
  }
}

/** RFC 6962 leaf hash: SHA-256(0x00 ‖ JCS(leaf)). */
export function leafHash(leaf: Record<string, unknown>): Buffer {
  return createHash('sha256').update(Buffer.from([0])).update(canonicalize(leaf) ?? '').digest()
}

export class SqliteLedger implements Ledger {
  readonly #db: DatabaseSync
  readonly #insert: StatementSync
  readonly #select: StatementSync
  #size: number
  #prev: string

  constructor(path: string) {
    this.#db = new DatabaseSync(path)
    this.#db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;')
    this.#db.exec(`CREATE TABLE IF NOT EXISTS leaves (
      seq INTEGER PRIMARY KEY, leaf_hash TEXT NOT NULL, prev_leaf_hash TEXT NOT NULL, leaf TEXT NOT NULL, signature TEXT)`)
    this.#insert = this.#db.prepare('INSERT INTO leaves (seq, leaf_hash, prev_leaf_hash, leaf, signature) VALUES (?, ?, ?, ?, ?)')
    this.#select = this.#db.prepare('SELECT seq, leaf_hash, prev_leaf_hash, leaf, signature FROM leaves WHERE seq = ?')
    const last = this.#db.prepare('SELECT seq, leaf_hash FROM leaves ORDER BY seq DESC LIMIT 1').get() as { seq: number; leaf_hash: string } | undefined
    this.#size = last ? last.seq + 1 : 0
    this.#prev = last?.leaf_hash ?? ZERO_HASH
  }

  async append(draft: LedgerDraft, sign?: LeafSigner): Promise<LedgerEntry> {
    const seq = this.#size
    const leaf = leafOf(seq, draft, this.#prev)
    const hash = leafHash(leaf)
    const signature = sign?.(hash)
    const hex = hash.toString('hex')
    this.#insert.run(seq, hex, this.#prev, canonicalize(leaf) ?? '', signature ?? null)
    this.#size = seq + 1
    const entry: LedgerEntry = { ...draft, seq, leafHash: hex, prevLeafHash: this.#prev, signature }
    this.#prev = hex
    return entry
  }

  get(seq: number): LedgerEntry | undefined {
    const row = this.#select.get(seq) as { seq: number; leaf_hash: string; prev_leaf_hash: string; leaf: string; signature: string | null } | undefined
    if (!row) return undefined
    const leaf = JSON.parse(row.leaf) as Record<string, unknown>
    return {
      kind: leaf.kind as LedgerEntry['kind'],
      at: leaf.at as number,
      sessionId: leaf.session_id as string,
      signer: leaf.signer as LedgerEntry['signer'],
      source: leaf.source as string,
      tool: leaf.tool as string,
      verdict: leaf.verdict as LedgerEntry['verdict'],
      monitorMatch: leaf.monitor_match as boolean,
      ruleId: leaf.rule_id as string,
      toolUseId: leaf.tool_use_id as string,
      policyTrace: leaf.policy_trace as LedgerEntry['policyTrace'],
      payloadHash: leaf.payload_hash as string,
      reason: leaf.reason as string,
      parentSeq: (leaf.parent_seq as number | null) ?? undefined,
      seq: row.seq,
      leafHash: row.leaf_hash,
      prevLeafHash: row.prev_leaf_hash,
      signature: row.signature ?? undefined,
    }
  }

  size(): number {
    return this.#size
  }

  close(): void {
    this.#db.close()
  }
}
