/**
 * The signed, append-only Merkle ledger. `append` assigns the seq, builds the JCS leaf, hashes and signs it
 * natively with the session key, and resolves only after the leaf is committed (WAL, synchronous=FULL).
 * Concurrent appends share one transaction (group commit): every append queued before the flush runs is
 * written together, so throughput does not pay one fsync per leaf. Proofs use only committed state.
 */
import { randomBytes } from 'node:crypto'
import { EngineError, ERR } from '../errors.ts'
import type { LedgerEntry, SignerKind } from '../types.ts'
import { CompactRange } from './compact-range.ts'
import { signNative, type SigningKey } from './ed25519.ts'
import { leafBytes } from './jcs.ts'
import { entryFromLeaf, GENESIS_PREV, leafObject, leafSigMessage, type LeafDraft, type LeafObject } from './leaf.ts'
import { EMPTY_ROOT, hashLeaf } from './merkle.ts'
import { consistencyPath, inclusionPath, rootOfSize } from './proof-build.ts'
import { checkpointText, noteVerifierKey, signNote } from './signed-note.ts'
import { LedgerStore, type LeafRow } from './store.ts'

/**
 * Signs a leaf for its session: returns the Ed25519 signature over `"svc/leaf-sig/v1\n" ‖ leafHash`
 * (see `leafSigMessage`). Throws (EngineError SESSION_INVALID) when the session can no longer sign.
 */
export type LeafSigner = (leafHash: Buffer) => Buffer

/** Builds the leaf signer of an in-memory session key (native Ed25519, the hot path). */
export function leafSignerFor(key: SigningKey): LeafSigner {
  return (leafHash) => signNative(key, leafSigMessage(leafHash))
}

/** A stored leaf as the API shows it. */
export interface StoredLeaf {
  readonly seq: number
  readonly body: string
  readonly leaf: LeafObject
  readonly leafHash: Buffer
  readonly signature: Buffer | null
}

export interface LedgerOptions {
  /** SQLite file; `:memory:` only for tests that need no durability. */
  readonly path: string
}

interface Pending {
  readonly row: LeafRow
  readonly nodes: ReturnType<CompactRange['append']>
  readonly leaf: LeafObject
  readonly resolve: (entry: LedgerEntry) => void
  readonly reject: (err: unknown) => void
}

const UNSIGNED_KINDS: ReadonlySet<SignerKind | 'none'> = new Set(['unattested', 'none'])

/** Opens (or creates) a ledger and checks its stored tree before serving. */
export class SqliteLedger {
  readonly store: LedgerStore
  /** Checkpoint origin, `svc.local/<random host id>`, fixed at creation. */
  readonly origin: string
  #committed: CompactRange
  #committedPrev: string
  #pending: CompactRange
  #pendingPrev: string
  #queue: Pending[] = []
  #flushScheduled = false
  #closed = false
  #observers: ((entry: LedgerEntry) => void)[] = []

  constructor(options: LedgerOptions | string) {
    this.store = new LedgerStore(typeof options === 'string' ? options : options.path)
    try {
      this.origin = this.store.setMetaOnce('origin', `svc.local/${randomBytes(6).toString('hex')}`)
      const { count, maxSeq } = this.store.extent()
      if (count !== maxSeq + 1) throw new EngineError(ERR.LEDGER_BROKEN, `ledger has ${count} leaves but its highest seq is ${maxSeq}`)
      this.#committed = CompactRange.fromStore(count, this.store.readNode)
      this.#committedPrev = count === 0 ? GENESIS_PREV : this.store.leaf(maxSeq)!.leafHash.toString('hex')
      this.#pending = this.#committed.clone()
      this.#pendingPrev = this.#committedPrev
      this.#checkAgainstLatestCheckpoint()
    } catch (err) {
      this.store.close()
      throw err
    }
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
   * unsigned kind with one, or a leaf outside the I-JSON subset rejects without consuming a seq.
   */
  append(draft: LeafDraft, sign?: LeafSigner): Promise<LedgerEntry> {
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
      const row: LeafRow = {
        seq, body: body.toString('utf8'), leafHash, sig, sessionId: leaf.session_id,
        verdict: leaf.verdict, tool: leaf.tool, ruleId: leaf.rule_id, tsMs: leaf.ts_ms,
      }
      item = { row, leaf, nodes: this.#pending.append(leafHash) }
      this.#pendingPrev = leafHash.toString('hex')
    } catch (err) {
      return Promise.reject(err)
    }
    return new Promise<LedgerEntry>((resolve, reject) => {
      this.#queue.push({ ...item, resolve, reject })
      if (!this.#flushScheduled) {
        this.#flushScheduled = true
        setImmediate(() => this.#flush())
      }
    })
  }

  #flush(): void {
    this.#flushScheduled = false
    const batch = this.#queue.splice(0)
    if (batch.length === 0) return
    try {
      this.store.commitBatch(batch.map((p) => ({ leaf: p.row, nodes: p.nodes })))
    } catch (cause) {
      this.#pending = this.#committed.clone()
      this.#pendingPrev = this.#committedPrev
      const err = new EngineError(ERR.LEDGER_BROKEN, 'ledger write failed; the entry was not recorded', { cause })
      for (const p of batch) p.reject(err)
      return
    }
    this.#committed = this.#pending.clone()
    this.#committedPrev = this.#pendingPrev
    for (const p of batch) {
      const entry = entryFromLeaf(p.leaf, p.row.leafHash, p.row.sig)
      p.resolve(entry)
      for (const observe of this.#observers) {
        try {
          observe(entry)
        } catch {
          // observers never affect durability or the verdict
        }
      }
    }
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
    return this.store.leavesAfter(after, limit).filter((r) => r.seq < this.size()).map(toStoredLeaf)
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

  /** A C2SP checkpoint of the current tree signed by `key` (the current session key), stored for later audits. */
  checkpoint(key: SigningKey, signerKid: string): { note: string; vkey: string; treeSize: number; root: Buffer } {
    const treeSize = this.size()
    const root = this.root()
    const vkey = noteVerifierKey(this.origin, key.publicKey)
    const latest = this.store.latestCheckpoint()
    if (latest && latest.treeSize === treeSize && latest.signerKid === signerKid) return { note: latest.note, vkey, treeSize, root }
    const note = signNote(checkpointText(this.origin, treeSize, root), this.origin, key)
    this.store.saveCheckpoint({ treeSize, root, note, signerKid, createdMs: Date.now() })
    return { note, vkey, treeSize, root }
  }

  /** Writes queued appends, then closes the database. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.#queue.length > 0) this.#flush()
    this.store.close()
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

function toStoredLeaf(row: LeafRow): StoredLeaf {
  return { seq: row.seq, body: row.body, leaf: JSON.parse(row.body) as LeafObject, leafHash: row.leafHash, signature: row.sig }
}

/** The ledger surface the engine, routes and tools use. */
export type Ledger = SqliteLedger
