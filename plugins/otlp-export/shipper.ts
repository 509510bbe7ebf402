/**
 * The outbox shipper: the ledger is the buffer. Each batch reads the leaves after the cursor (and the
 * checkpoints signed over them, each placed right after the leaf that completes it), hands them to the OTLP
 * exporter in ONE request, and moves the durable cursor only when the collector accepted that request. A
 * collector that is down or slow for a day costs the hook path nothing (this runs off it) and loses nothing:
 * the next attempt re-reads the same leaves. The SDK's BatchLogRecordProcessor is deliberately not used — its
 * bounded queue drops records when full and its retries give up after `timeoutMillis` (otlp-exporter-base
 * retrying-transport), so it cannot be the durability.
 */
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { readCursor, writeCursor, type ExportCursor } from './cursor.ts'
import { checkpointRecord, cosignatureRecord, leafRecord, type ExportCheckpoint, type ExportCosignature, type ExportLeaf, type RecordContext } from './record.ts'

/** What the shipper reads: a ledger's committed leaves and signed checkpoints. */
export interface ExportSource {
  readonly origin: string
  /** Committed leaves with seq >= `from`, ascending, at most `limit`. */
  leavesFrom(from: number, limit: number): ExportLeaf[]
  /** Signed checkpoints with `after` < tree_size <= `upto`, ascending. */
  checkpointsBetween(after: number, upto: number): (ExportCheckpoint & { readonly createdMs: number })[]
  /** The newest cosignature of each witness (none when witnessing is off). */
  cosignatures(): ExportCosignature[]
}

/** One export request's outcome as the collector answered it. */
export type SendResult = { readonly ok: true } | { readonly ok: false; readonly error: string }

export interface ShipperOptions {
  readonly source: ExportSource
  readonly send: (records: ReadableLogRecord[]) => Promise<SendResult>
  readonly endpoint: string
  readonly cursorFile: string
  readonly context: RecordContext
  /** Leaves per request (default 512, the SDK's maxExportBatchSize). */
  readonly batchSize?: number
}

/** Totals of a run. */
export interface ShipTotals {
  leaves: number
  checkpoints: number
  requests: number
}

/** The collector did not accept a batch; the cursor did not move. */
export class ExportRefused extends Error {}

export class OtlpShipper {
  readonly #opts: ShipperOptions
  #cursor: ExportCursor

  constructor(opts: ShipperOptions) {
    this.#opts = opts
    this.#cursor = readCursor(opts.cursorFile, opts.endpoint, opts.source.origin)
  }

  /** Where the next batch starts. */
  cursor(): ExportCursor {
    return this.#cursor
  }

  /** Ships one batch; resolves with what was accepted (0 leaves and 0 checkpoints: nothing new). */
  async shipBatch(): Promise<{ leaves: number; checkpoints: number; cosignatures: number }> {
    const { source, context } = this.#opts
    const c = this.#cursor
    const leaves = source.leavesFrom(c.nextSeq, this.#opts.batchSize ?? 512)
    const upto = c.nextSeq + leaves.length
    const checkpoints = source.checkpointsBetween(c.checkpointSize, upto)
    // A cosignature ships once its checkpoint's leaves have (a verifier then has the tree to compare it with).
    const cosigned = source.cosignatures().filter((x) => x.treeSize <= upto && x.treeSize > (c.witnessed[x.witness] ?? 0))
    if (leaves.length === 0 && checkpoints.length === 0 && cosigned.length === 0) return { leaves: 0, checkpoints: 0, cosignatures: 0 }
    // A checkpoint of size N follows leaf N-1 (and comes first when its leaves were shipped earlier).
    const records: ReadableLogRecord[] = []
    let next = 0
    for (const leaf of leaves) {
      while (next < checkpoints.length && checkpoints[next]!.treeSize <= leaf.seq) records.push(checkpointRecord(checkpoints[next]!, checkpoints[next++]!.createdMs, context))
      records.push(leafRecord(leaf, context))
    }
    for (; next < checkpoints.length; next++) records.push(checkpointRecord(checkpoints[next]!, checkpoints[next]!.createdMs, context))
    for (const x of cosigned) records.push(cosignatureRecord(x, context))
    const result = await this.#opts.send(records)
    if (!result.ok) throw new ExportRefused(`collector at ${this.#opts.endpoint} did not accept ${records.length} records: ${result.error}`)
    const witnessed = { ...c.witnessed }
    for (const x of cosigned) witnessed[x.witness] = x.treeSize
    this.#cursor = { ...c, nextSeq: upto, checkpointSize: checkpoints.at(-1)?.treeSize ?? c.checkpointSize, witnessed }
    writeCursor(this.#opts.cursorFile, this.#cursor)
    return { leaves: leaves.length, checkpoints: checkpoints.length, cosignatures: cosigned.length }
  }

  /** Ships batches until nothing is left; throws ExportRefused at the first refused batch. */
  async drain(totals: ShipTotals = { leaves: 0, checkpoints: 0, requests: 0 }): Promise<ShipTotals> {
    for (;;) {
      const r = await this.shipBatch()
      if (r.leaves === 0 && r.checkpoints === 0 && r.cosignatures === 0) return totals
      totals.leaves += r.leaves
      totals.checkpoints += r.checkpoints
      totals.requests++
    }
  }

  /**
   * Ships continuously until `signal` aborts: drains, sleeps `pollMs`, and after a refused batch waits with
   * capped exponential backoff and full jitter (so a fleet does not return to a recovered collector at once).
   */
  async follow(signal: AbortSignal, opts: { pollMs: number; minBackoffMs?: number; maxBackoffMs?: number; onError?: (err: Error) => void }): Promise<ShipTotals> {
    const totals: ShipTotals = { leaves: 0, checkpoints: 0, requests: 0 }
    let failures = 0
    while (!signal.aborted) {
      let wait = opts.pollMs
      try {
        await this.drain(totals)
        failures = 0
      } catch (err) {
        if (!(err instanceof ExportRefused)) throw err
        opts.onError?.(err)
        failures++
        const cap = Math.min(opts.maxBackoffMs ?? 60_000, (opts.minBackoffMs ?? 500) * 2 ** Math.min(failures - 1, 20))
        wait = Math.max(opts.minBackoffMs ?? 500, Math.random() * cap)
      }
      await sleep(wait, signal)
    }
    return totals
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })
}
