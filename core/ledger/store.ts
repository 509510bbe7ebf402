/**
 * The ledger's SQLite layout (LEDGER.md §10.3): `leaves` holds the exact JCS bytes, leaf hash and signature;
 * `nodes` holds every perfect-subtree hash keyed by (level, idx), so roots and proofs are O(log n) point
 * reads; `checkpoints` keeps every signed tree head ever issued. WAL with synchronous=FULL: a committed
 * transaction survives a process crash and a power loss. Triggers make every table append-only against bugs.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { CompletedNode } from './compact-range.ts'

/** One leaf row as stored. */
export interface LeafRow {
  readonly seq: number
  readonly body: string
  readonly leafHash: Buffer
  readonly sig: Buffer | null
  readonly sessionId: string
  readonly verdict: string
  readonly tool: string
  readonly ruleId: string
  readonly tsMs: number
}

/** One stored signed checkpoint. */
export interface CheckpointRow {
  readonly treeSize: number
  readonly root: Buffer
  readonly note: string
  readonly signerKid: string
  readonly createdMs: number
}

/** One leaf and the perfect-subtree nodes its append completes. */
export interface LeafWrite {
  readonly leaf: LeafRow
  readonly nodes: readonly CompletedNode[]
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS leaves (
  seq INTEGER PRIMARY KEY, body TEXT NOT NULL, leaf_hash BLOB NOT NULL, sig BLOB,
  session_id TEXT NOT NULL, verdict TEXT NOT NULL, tool TEXT NOT NULL, rule_id TEXT NOT NULL, ts_ms INTEGER NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS leaves_by_session ON leaves (session_id, verdict);
CREATE INDEX IF NOT EXISTS leaves_session_events ON leaves (session_id) WHERE verdict IN ('session_created', 'session_rotated');
CREATE INDEX IF NOT EXISTS leaves_by_tool_use ON leaves (json_extract(body, '$.source'), json_extract(body, '$.tool_use_id'), seq)
  WHERE json_extract(body, '$.tool_use_id') <> '';
CREATE TABLE IF NOT EXISTS nodes (level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL, PRIMARY KEY (level, idx)) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoints (
  tree_size INTEGER PRIMARY KEY, root BLOB NOT NULL, note TEXT NOT NULL, signer_kid TEXT NOT NULL, created_ms INTEGER NOT NULL) STRICT;
`
const APPEND_ONLY_TABLES = ['leaves', 'nodes', 'checkpoints']

function appendOnlyTriggers(): string {
  return APPEND_ONLY_TABLES.flatMap((t) => [
    `CREATE TRIGGER IF NOT EXISTS ${t}_no_update BEFORE UPDATE ON ${t} BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END;`,
    `CREATE TRIGGER IF NOT EXISTS ${t}_no_delete BEFORE DELETE ON ${t} BEGIN SELECT RAISE(ABORT, '${t} is append-only'); END;`,
  ]).join('\n')
}

/** Prepared-statement access to one ledger database file. Single writer: the daemon process. */
export class LedgerStore {
  readonly db: DatabaseSync
  readonly #insertLeaf: StatementSync
  readonly #insertNode: StatementSync
  readonly #readNode: StatementSync
  readonly #readLeaf: StatementSync
  readonly #readLeavesAfter: StatementSync
  readonly #insertCheckpoint: StatementSync
  readonly #latestDecision: StatementSync
  readonly #outcomeAfter: StatementSync

  constructor(path: string, options: { readOnly?: boolean; busyTimeoutMs?: number } = {}) {
    this.db = new DatabaseSync(path, { readOnly: options.readOnly ?? false })
    if (!options.readOnly) {
      this.db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000};`)
      this.db.exec(SCHEMA + appendOnlyTriggers())
    }
    this.#insertLeaf = this.db.prepare('INSERT INTO leaves (seq, body, leaf_hash, sig, session_id, verdict, tool, rule_id, ts_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    this.#insertNode = this.db.prepare('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)')
    this.#readNode = this.db.prepare('SELECT hash FROM nodes WHERE level = ? AND idx = ?')
    this.#readLeaf = this.db.prepare('SELECT * FROM leaves WHERE seq = ?')
    this.#readLeavesAfter = this.db.prepare('SELECT * FROM leaves WHERE seq > ? ORDER BY seq LIMIT ?')
    // Both lookups repeat the partial index's WHERE term verbatim so SQLite can use leaves_by_tool_use.
    const byToolUse = "json_extract(body, '$.source') = ? AND json_extract(body, '$.tool_use_id') = ? AND json_extract(body, '$.tool_use_id') <> ''"
    this.#latestDecision = this.db.prepare(`SELECT * FROM leaves WHERE ${byToolUse} AND json_extract(body, '$.type') = 'decision' ORDER BY seq DESC LIMIT 1`)
    this.#outcomeAfter = this.db.prepare(`SELECT seq FROM leaves WHERE ${byToolUse} AND seq > ? AND verdict = ? ORDER BY seq LIMIT 1`)
    this.#insertCheckpoint = this.db.prepare('INSERT OR IGNORE INTO checkpoints (tree_size, root, note, signer_kid, created_ms) VALUES (?, ?, ?, ?, ?)')
  }

  /** Writes a batch of leaves, their completed nodes and checkpoints in one durable transaction (group commit). */
  commitBatch(batch: readonly LeafWrite[], checkpoints: readonly CheckpointRow[] = []): void {
    this.db.exec('BEGIN IMMEDIATE')
    try {
      for (const { leaf, nodes } of batch) {
        this.#insertLeaf.run(leaf.seq, leaf.body, leaf.leafHash, leaf.sig, leaf.sessionId, leaf.verdict, leaf.tool, leaf.ruleId, leaf.tsMs)
        for (const n of nodes) this.#insertNode.run(n.level, n.idx, n.hash)
      }
      for (const c of checkpoints) this.#insertCheckpoint.run(c.treeSize, c.root, c.note, c.signerKid, c.createdMs)
      this.db.exec('COMMIT')
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK')
      throw err
    }
  }

  /** Reads a stored perfect-subtree hash; throws when it is missing, which means the tree is broken. */
  readonly readNode = (level: number, idx: number): Buffer => {
    const row = this.#readNode.get(level, idx) as { hash: Uint8Array } | undefined
    if (!row) throw new Error(`ledger node (${level}, ${idx}) is missing`)
    return Buffer.from(row.hash)
  }

  leaf(seq: number): LeafRow | undefined {
    const row = this.#readLeaf.get(seq) as Record<string, unknown> | undefined
    return row ? toLeafRow(row) : undefined
  }

  /** Leaves with seq > `after`, ascending, at most `limit`. */
  leavesAfter(after: number, limit: number): LeafRow[] {
    return (this.#readLeavesAfter.all(after, limit) as Record<string, unknown>[]).map(toLeafRow)
  }

  /** The newest decision leaf of a tool use (by harness source and tool use id): what its outcome rows link to. */
  latestDecision(source: string, toolUseId: string): LeafRow | undefined {
    const row = this.#latestDecision.get(source, toolUseId) as Record<string, unknown> | undefined
    return row ? toLeafRow(row) : undefined
  }

  /** The seq of the first `verdict` outcome row of a tool use after `afterSeq`, if one was recorded. */
  outcomeAfter(source: string, toolUseId: string, afterSeq: number, verdict: string): number | undefined {
    const row = this.#outcomeAfter.get(source, toolUseId, afterSeq, verdict) as { seq: number } | undefined
    return row ? Number(row.seq) : undefined
  }

  /** Session and ledger event leaves in seq order, found through the indexes (verification pre-pass). */
  eventLeaves(): { seq: number; body: string }[] {
    const rows = this.db
      .prepare(`SELECT seq, body FROM leaves WHERE verdict IN ('session_created', 'session_rotated', 'session_expired')
        UNION ALL SELECT seq, body FROM leaves WHERE session_id = '' AND verdict IN ('ledger_created', 'ledger_opened') ORDER BY seq`)
      .all() as { seq: number; body: string }[]
    return rows.map((r) => ({ seq: Number(r.seq), body: String(r.body) }))
  }

  /** Every leaf in seq order, streamed (for whole-ledger verification). */
  *allLeaves(): Generator<LeafRow> {
    for (const row of this.db.prepare('SELECT * FROM leaves ORDER BY seq').iterate()) yield toLeafRow(row as Record<string, unknown>)
  }

  /** A stored node or undefined (verification reads; the tree-building path uses `readNode`). */
  readonly findNode = (level: number, idx: number): Buffer | undefined => {
    const row = this.#readNode.get(level, idx) as { hash: Uint8Array } | undefined
    return row ? Buffer.from(row.hash) : undefined
  }

  /** Number of leaves and the highest seq, to check the table is gap-free at startup. */
  extent(): { count: number; maxSeq: number } {
    const row = this.db.prepare('SELECT COUNT(*) AS count, COALESCE(MAX(seq), -1) AS maxSeq FROM leaves').get() as { count: number; maxSeq: number }
    return { count: Number(row.count), maxSeq: Number(row.maxSeq) }
  }

  saveCheckpoint(c: CheckpointRow): void {
    this.#insertCheckpoint.run(c.treeSize, c.root, c.note, c.signerKid, c.createdMs)
  }

  latestCheckpoint(): CheckpointRow | undefined {
    const row = this.db.prepare('SELECT * FROM checkpoints ORDER BY tree_size DESC LIMIT 1').get() as Record<string, unknown> | undefined
    return row ? toCheckpointRow(row) : undefined
  }

  /** The newest `limit` checkpoints, newest first. */
  recentCheckpoints(limit: number): CheckpointRow[] {
    return (this.db.prepare('SELECT * FROM checkpoints ORDER BY tree_size DESC LIMIT ?').all(limit) as Record<string, unknown>[]).map(toCheckpointRow)
  }

  checkpoints(): CheckpointRow[] {
    return (this.db.prepare('SELECT * FROM checkpoints ORDER BY tree_size').all() as Record<string, unknown>[]).map(toCheckpointRow)
  }

  meta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined
    return row?.value
  }

  setMetaOnce(key: string, value: string): string {
    this.db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(key, value)
    return this.meta(key)!
  }

  close(): void {
    if (this.db.isOpen) this.db.close()
  }
}

function toLeafRow(row: Record<string, unknown>): LeafRow {
  return {
    seq: Number(row.seq),
    body: String(row.body),
    leafHash: Buffer.from(row.leaf_hash as Uint8Array),
    sig: row.sig == null ? null : Buffer.from(row.sig as Uint8Array),
    sessionId: String(row.session_id),
    verdict: String(row.verdict),
    tool: String(row.tool),
    ruleId: String(row.rule_id),
    tsMs: Number(row.ts_ms),
  }
}

function toCheckpointRow(row: Record<string, unknown>): CheckpointRow {
  return {
    treeSize: Number(row.tree_size),
    root: Buffer.from(row.root as Uint8Array),
    note: String(row.note),
    signerKid: String(row.signer_kid),
    createdMs: Number(row.created_ms),
  }
}
