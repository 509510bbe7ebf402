/**
 * The signed, append-only Merkle ledger. `append` assigns the seq, builds the JCS leaf, hashes and signs it
 * natively with the session key on the caller's thread, and resolves only after the leaf is committed (WAL,
 * synchronous=FULL) by the writer thread, which owns the only write connection, so no fsync ever runs on the
 * event loop. One batch is in flight at a time; appends queued meanwhile go into the next batch (group commit).
 * Reads (proofs, lookups, entries) use a connection of their own on the caller's thread (WAL readers) and only
 * ever see committed leaves. The daemon signs checkpoints by itself (`autoCheckpoint`), each also in `checkpoints.log`.
 */
import { randomBytes } from 'node:crypto'
import { EngineError, ERR } from '../errors.ts'
import type { LedgerEntry, SignerKind } from '../types.ts'
import { checkpointLogBeside, type CheckpointLogEntry } from './checkpoint-log.ts'
import type { CosignatureView } from './cosignature-view.ts'
import { CompactRange } from './compact-range.ts'
import type { SigningKey } from './ed25519.ts'
import { leafBytes } from './jcs.ts'
import { entryFromLeaf, GENESIS_PREV, leafObject, ledgerEventLeaf, type LeafDraft, type LeafObject, type LeafSigner } from './leaf.ts'

import { checkLedgerEvidence, writeLedgerMarker, type LedgerGuardOptions } from './ledger-guard.ts'
import { EMPTY_ROOT, hashLeaf } from './merkle.ts'
import { consistencyPath, inclusionPath, rootOfSize } from './proof-build.ts'
import { checkpointText, noteVerifierKey, signNote } from './signed-note.ts'
import { LedgerStore, type CheckpointRow, type LeafRow, type LeafWrite } from './store.ts'
import { InlineWriter, ThreadWriter, type LedgerWriter } from './writer.ts'
import { fileIdentity, type WriterReply } from './writer-worker.ts'

/** A stored leaf as the API shows it. */
export interface StoredLeaf {
  readonly seq: number
  readonly body: string
  readonly leaf: LeafObject
  readonly leafHash: Buffer
  readonly signature: Buffer | null
}

export interface LedgerOptions {
  /** SQLite file; `:memory:` only for tests that need no durability (written on the caller's thread). */
  readonly path: string
  /** Where signed checkpoints are also appended; default `checkpoints.log` beside the database. */
  readonly checkpointLog?: string
  /**
   * A daemon start: refuse a ledger.db that disagrees with the evidence outside it (see ledger-guard.ts)
   * and record a `ledger_opened` leaf, the boundary after which every earlier session key is gone.
   */
  readonly daemon?: LedgerGuardOptions
  /** How long a commit waits for a lock held by another process before it fails (default 1000 ms). */
  readonly busyTimeoutMs?: number
  /** `inline` commits on the caller's thread (the pre-thread behaviour; kept for bench/ledger's comparison). */
  readonly writer?: 'thread' | 'inline'
}

interface Pending {
  readonly write: LeafWrite
  readonly leaf: LeafObject
  readonly resolve: (entry: LedgerEntry) => void
  readonly reject: (err: unknown) => void
}

interface QueuedCheckpoint {
  readonly row: CheckpointRow
  readonly log: CheckpointLogEntry
}

const UNSIGNED_KINDS: ReadonlySet<SignerKind | 'none'> = new Set(['unattested', 'none'])

/** Opens (or creates) a ledger and checks its stored tree before serving. */
export class SqliteLedger {
  /** The read connection (the writer thread has its own). */
  readonly store: LedgerStore
  /** Checkpoint origin, `svc.local/<random host id>`, fixed at creation. */
  readonly origin: string
  /** The append-only file every signed checkpoint is also written to (undefined in memory). */
  readonly checkpointLog: string | undefined
  readonly #writer: LedgerWriter
  #committed: CompactRange
  #committedPrev: string
  #pending: CompactRange
  #pendingPrev: string
  #queue: Pending[] = []
  #checkpointQueue: QueuedCheckpoint[] = []
  #inFlight = false
  #flushScheduled = false
  #closed = false
  #closing?: Promise<void>
  #broken?: EngineError
  #idleWaiters: (() => void)[] = []
  #lastCheckpoint?: { readonly treeSize: number; readonly signerKid: string; readonly note: string; readonly root: Buffer }
  #autoTimer?: NodeJS.Timeout
  #autoSign?: () => void
  #observers: ((entry: LedgerEntry) => void)[] = []
  /** Newest cosignature per witness for GET /v1/ledger/root; set by the fleet witness feature (the core submits nothing). */
  cosignatures: () => readonly CosignatureView[] = () => []
  /** Runs before each checkpoint is signed; a throw refuses it (the witness plugin's watermark records the size outside the ledger first). */
  beforeSign: (treeSize: number, root: Buffer) => void = () => {}
  /** The last error writing `checkpoints.log` (the checkpoint row itself was committed). */
  lastCheckpointLogError: string | undefined

  constructor(options: LedgerOptions | string) {
    const opts = typeof options === 'string' ? { path: options } : options
    this.checkpointLog = opts.checkpointLog ?? checkpointLogBeside(opts.path)
    this.store = new LedgerStore(opts.path)
    try {
      const { count, maxSeq } = this.store.extent()
      if (count !== maxSeq + 1) throw new EngineError(ERR.LEDGER_BROKEN, `ledger has ${count} leaves but its highest seq is ${maxSeq}`)
      const guard = opts.daemon ? checkLedgerEvidence(this.store, count, this.checkpointLog, opts.daemon) : { kind: 'ok' as const }
      if (guard.kind === 'replace') this.store.db.prepare('DELETE FROM meta WHERE key = ?').run('origin')
      this.origin = this.store.setMetaOnce('origin', `svc.local/${randomBytes(6).toString('hex')}`)
      this.#committed = CompactRange.fromStore(count, this.store.readNode)
      this.#committedPrev = count === 0 ? GENESIS_PREV : this.store.leaf(maxSeq)!.leafHash.toString('hex')
      this.#checkAgainstLatestCheckpoint()
      if (guard.kind === 'replace') {
        const r = guard.replaces
        this.#writeEventNow(
          ledgerEventLeaf(
            'ledger_created',
            0,
            GENESIS_PREV,
            `new ledger (svc daemon --new-ledger) replacing ledger ${r.origin}${r.tree_size === null ? '' : ` whose last signed checkpoint had ${r.tree_size} leaves, root ${r.root}`}`,
            r,
          ),
        )
      } else if (opts.daemon && count > 0) {
        this.#writeEventNow(ledgerEventLeaf('ledger_opened', count, this.#committedPrev, 'daemon started: session keys from before this leaf are gone'))
      }
      if (opts.daemon) writeLedgerMarker(opts.daemon.marker, opts.path, this.origin)
      this.#pending = this.#committed.clone()
      this.#pendingPrev = this.#committedPrev
      const latest = this.store.latestCheckpoint()
      if (latest) this.#lastCheckpoint = latest
      this.#writer =
        opts.path === ':memory:' || opts.writer === 'inline'
          ? new InlineWriter(this.store)
          : new ThreadWriter(
              { path: opts.path, checkpointLog: this.checkpointLog, busyTimeoutMs: opts.busyTimeoutMs ?? 1000, file: fileIdentity(opts.path) },
              opts.daemon !== undefined,
            )
    } catch (err) {
      this.store.close()
      throw err
    }
  }

  /** Commits a ledger event leaf on this connection at open (before the writer thread exists). */
  #writeEventNow(leaf: LeafObject): void {
    const body = leafBytes(leaf as unknown as Record<string, unknown>)
    const leafHash = hashLeaf(body)
    const nodes = this.#committed.append(leafHash)
    this.store.commitBatch([{ leaf: leafRow(leaf, body, leafHash, null), nodes }])
    this.#committedPrev = leafHash.toString('hex')
  }

  /** Registers a post-commit observer (e.g. counters); its throws are swallowed so they never fail an append. */
  onCommitted(observer: (entry: LedgerEntry) => void): void {
    this.#observers.push(observer)
  }

  /** Number of committed leaves (= next seq once pending appends land). */
  size(): number {
    return this.#committed.size
  }

  /**
   * Appends one leaf signed by `sign`; resolves once it is durable. A signed signer kind without `sign`, an
   * unsigned kind with one, or a leaf outside the I-JSON subset rejects without consuming a seq. After a
   * failed write every append queued behind it fails too (it was chained onto the lost leaves); the next
   * append tries again, unless the ledger file is gone (then every append fails until a restart).
   */
  append(draft: LeafDraft, sign?: LeafSigner): Promise<LedgerEntry> {
    if (this.#broken) return Promise.reject(this.#broken)
    if (this.#closed) return Promise.reject(new EngineError(ERR.LEDGER_BROKEN, 'ledger is closed'))
    let item: Omit<Pending, 'resolve' | 'reject'>
    try {
      const unsigned = UNSIGNED_KINDS.has(draft.signer)
      if (unsigned === (sign !== undefined)) {
        throw new EngineError(ERR.SESSION_INVALID, unsigned ? `a ${draft.signer} leaf must not be signed` : `no signing key is known for session ${draft.sessionId}`)
      }
      const seq = this.#pending.size
      const leaf = leafObject(draft, seq, this.#pendingPrev)
      const body = leafBytes(leaf as unknown as Record<string, unknown>)
      const leafHash = hashLeaf(body)
      const sig = sign ? sign(leafHash) : null
      item = { leaf, write: { leaf: leafRow(leaf, body, leafHash, sig), nodes: this.#pending.append(leafHash) } }
      this.#pendingPrev = leafHash.toString('hex')
    } catch (err) {
      return Promise.reject(err)
    }
    return new Promise<LedgerEntry>((resolve, reject) => {
      this.#queue.push({ ...item, resolve, reject })
      this.#schedule()
    })
  }

  #schedule(): void {
    if (this.#flushScheduled || this.#inFlight) return
    this.#flushScheduled = true
    setImmediate(() => this.#flush())
  }

  #flush(): void {
    this.#flushScheduled = false
    if (this.#inFlight) return
    const batch = this.#queue.splice(0)
    const checkpoints = this.#checkpointQueue.splice(0)
    if (batch.length === 0 && checkpoints.length === 0) return this.#notifyIdle()
    this.#inFlight = true
    const after = { range: this.#pending.clone(), prev: this.#pendingPrev }
    void this.#writer
      .commit({ leaves: batch.map((p) => p.write), checkpoints: checkpoints.map((c) => c.row), logEntries: checkpoints.map((c) => c.log) })
      .then((reply) => this.#settle(batch, checkpoints, reply, after))
  }

  #settle(batch: Pending[], checkpoints: QueuedCheckpoint[], reply: WriterReply, after: { range: CompactRange; prev: string }): void {
    this.#inFlight = false
    if (reply.ok) {
      this.lastCheckpointLogError = reply.logError
      this.#committed = after.range
      this.#committedPrev = after.prev
      for (const p of batch) {
        const entry = entryFromLeaf(p.leaf, p.write.leaf.leafHash, p.write.leaf.sig)
        p.resolve(entry)
        for (const observe of this.#observers) {
          try {
            observe(entry)
          } catch {
            // observers never affect durability or the verdict
          }
        }
      }
    } else {
      const err = new EngineError(ERR.LEDGER_BROKEN, `ledger write failed; the entry was not recorded: ${reply.message}`)
      if (reply.permanent) this.#broken = err
      // Everything queued meanwhile was chained onto the lost leaves: it fails too, and the chain restarts
      // from the committed tree.
      const later = this.#queue.splice(0)
      this.#pending = this.#committed.clone()
      this.#pendingPrev = this.#committedPrev
      if (checkpoints.some((c) => c.row.treeSize === this.#lastCheckpoint?.treeSize)) this.#lastCheckpoint = undefined
      for (const p of [...batch, ...later]) p.reject(err)
    }
    if (this.#queue.length > 0 || this.#checkpointQueue.length > 0) this.#schedule()
    else this.#notifyIdle()
  }

  #notifyIdle(): void {
    if (this.#inFlight || this.#queue.length > 0 || this.#checkpointQueue.length > 0) return
    for (const wake of this.#idleWaiters.splice(0)) wake()
  }

  /** Resolves once nothing is queued or in flight. */
  #drained(): Promise<void> {
    if (!this.#inFlight && this.#queue.length === 0 && this.#checkpointQueue.length === 0) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  /** Root of the committed tree, or of an older size. */
  root(treeSize = this.size()): Buffer {
    if (treeSize === this.size()) return this.#committed.root() ?? EMPTY_ROOT
    this.#checkSize(treeSize, 0)
    return rootOfSize(this.store.readNode, treeSize) ?? EMPTY_ROOT
  }

  /** The core's view of a committed entry. */
  get(seq: number): LedgerEntry | undefined {
    const stored = this.leaf(seq)
    return stored && entryFromLeaf(stored.leaf, stored.leafHash, stored.signature)
  }

  /** A leaf by seq, with its exact stored bytes. */
  leaf(seq: number): StoredLeaf | undefined {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= this.size()) return undefined
    const row = this.store.leaf(seq)
    return row ? toStoredLeaf(row) : undefined
  }

  /**
   * The newest committed decision leaf of a tool use, found through the ledger's own index (so outcome
   * rows link to their parent across daemon restarts). Empty tool use ids never match.
   */
  latestDecision(source: string, toolUseId: string): StoredLeaf | undefined {
    if (toolUseId === '') return undefined
    const row = this.store.latestDecision(source, toolUseId)
    return row && row.seq < this.size() ? toStoredLeaf(row) : undefined
  }

  /** True when a `verdict` outcome row of this tool use was committed after `afterSeq` (a duplicate delivery). */
  hasOutcomeAfter(source: string, toolUseId: string, afterSeq: number, verdict: string): boolean {
    return toolUseId !== '' && this.store.outcomeAfter(source, toolUseId, afterSeq, verdict) !== undefined
  }

  /** Committed leaves with seq > after, ascending. */
  entries(after: number, limit: number): StoredLeaf[] {
    return this.store
      .leavesAfter(after, limit)
      .filter((r) => r.seq < this.size())
      .map(toStoredLeaf)
  }

  /** Audit path for `seq` in the tree of `treeSize` leaves (default: current). */
  inclusionProof(seq: number, treeSize = this.size()): { treeSize: number; root: Buffer; proof: Buffer[] } {
    this.#checkSize(treeSize, 1)
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= treeSize) throw new RangeError(`seq ${seq} is not in a tree of ${treeSize} leaves`)
    return { treeSize, root: this.root(treeSize), proof: inclusionPath(this.store.readNode, seq, treeSize) }
  }

  /** Consistency proof between two committed sizes (1 <= from <= to <= size). */
  consistencyProof(from: number, to: number): Buffer[] {
    this.#checkSize(to, 1)
    if (!Number.isSafeInteger(from) || from < 1 || from > to) throw new RangeError(`from must be between 1 and ${to}`)
    return consistencyPath(this.store.readNode, from, to)
  }

  /**
   * A C2SP checkpoint of the committed tree signed by `key` (a session key), kept in the database and in
   * `checkpoints.log` (written by the writer thread with the next batch). Reuses the last one when neither
   * the tree nor the signer changed.
   */
  checkpoint(key: SigningKey, signerKid: string): { note: string; vkey: string; treeSize: number; root: Buffer } {
    const treeSize = this.size()
    const root = this.root()
    const vkey = noteVerifierKey(this.origin, key.publicKey)
    const last = this.#lastCheckpoint
    if (last && last.treeSize === treeSize && last.signerKid === signerKid) return { note: last.note, vkey, treeSize, root }
    this.beforeSign(treeSize, root)
    const note = signNote(checkpointText(this.origin, treeSize, root), this.origin, key)
    const createdMs = Date.now()
    this.#lastCheckpoint = { treeSize, signerKid, note, root }
    this.#checkpointQueue.push({
      row: { treeSize, root, note, signerKid, createdMs },
      log: { v: 1, origin: this.origin, tree_size: treeSize, root: root.toString('base64'), signer_kid: signerKid, vkey, ts_ms: createdMs, note },
    })
    this.#schedule()
    return { note, vkey, treeSize, root }
  }

  /** Size of the newest checkpoint signed (or found at open); -1 when there is none. */
  checkpointedSize(): number {
    return this.#lastCheckpoint?.treeSize ?? -1
  }

  /**
   * Signs checkpoints without being asked: every `intervalMs` while the tree grows, and once more at close.
   * `sign` signs with whatever session key is active (see the engine); without one nothing can be signed and
   * `svc ledger verify` reports the leaves no checkpoint covers.
   */
  autoCheckpoint(sign: () => void, intervalMs = 2000): void {
    this.#autoSign = () => {
      if (this.size() <= this.checkpointedSize()) return
      try {
        sign()
      } catch {
        // no session can sign now; the next tick (or close) tries again
      }
    }
    clearInterval(this.#autoTimer)
    this.#autoTimer = setInterval(this.#autoSign, intervalMs).unref()
  }

  /** Commits queued appends, signs a last checkpoint, then closes the writer thread and the read connection. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true
      clearInterval(this.#autoTimer)
      await this.#drained()
      this.#autoSign?.()
      await this.#drained()
      await this.#writer.close()
      this.store.close()
    })()
    return this.#closing
  }

  #checkSize(treeSize: number, min: number): void {
    if (!Number.isSafeInteger(treeSize) || treeSize < min || treeSize > this.size()) {
      throw new RangeError(`tree size must be between ${min} and ${this.size()}`)
    }
  }

  #checkAgainstLatestCheckpoint(): void {
    const latest = this.store.latestCheckpoint()
    if (!latest || latest.treeSize > this.size()) {
      if (latest) throw new EngineError(ERR.LEDGER_BROKEN, `ledger has ${this.size()} leaves, fewer than its checkpoint of ${latest.treeSize}`)
      return
    }
    if (!this.root(latest.treeSize).equals(latest.root)) {
      throw new EngineError(ERR.LEDGER_BROKEN, `stored tree does not match the checkpoint at size ${latest.treeSize}`)
    }
  }
}

function leafRow(leaf: LeafObject, body: Buffer, leafHash: Buffer, sig: Buffer | null): LeafRow {
  return { seq: leaf.seq, body: body.toString('utf8'), leafHash, sig, sessionId: leaf.session_id, verdict: leaf.verdict, tool: leaf.tool, ruleId: leaf.rule_id, tsMs: leaf.ts_ms }
}

function toStoredLeaf(row: LeafRow): StoredLeaf {
  return { seq: row.seq, body: row.body, leaf: JSON.parse(row.body) as LeafObject, leafHash: row.leafHash, signature: row.sig }
}

/** The ledger surface the engine, routes and tools use. */
export type Ledger = SqliteLedger
