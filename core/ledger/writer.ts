/**
 * How the ledger reaches its write connection: a worker thread (the daemon: commits and their fsync run off
 * the event loop) or, for `:memory:` databases that a thread cannot share, the caller's own connection.
 */
import { once } from 'node:events'
import type { Worker } from 'node:worker_threads'
import { startWorker } from '../worker-thread.ts'
import type { CheckpointLogEntry } from './checkpoint-log.ts'
import type { CheckpointRow, LeafWrite, LedgerStore } from './store.ts'
import { commitRequest, type WriterInit, type WriterReply, type WriterRequest } from './writer-worker.ts'

export interface WriteBatch {
  readonly leaves: readonly LeafWrite[]
  readonly checkpoints: readonly CheckpointRow[]
  readonly logEntries: readonly CheckpointLogEntry[]
}

export interface LedgerWriter {
  /** Commits a batch durably; never rejects (a failure is a reply with ok: false). */
  commit(batch: WriteBatch): Promise<WriterReply>
  close(): Promise<void>
}

/** Writes on a dedicated thread with its own connection (tools that only read, like `svc explain`, never start it). */
export class ThreadWriter implements LedgerWriter {
  readonly #init: WriterInit
  #worker?: Worker
  readonly #waiting = new Map<number, (reply: WriterReply) => void>()
  #nextId = 1
  #dead?: string

  /** `eager` starts the thread now (a daemon: ready before its first append); otherwise at the first commit. */
  constructor(init: WriterInit, eager = false) {
    this.#init = init
    if (eager) this.#thread().unref()
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker
    // Small heap: the thread only moves rows into SQLite, so it should add little to the daemon's RSS.
    const worker = startWorker(new URL('./writer-worker.ts', import.meta.url), {
      workerData: { svcLedgerWriter: this.#init },
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 4 },
    })
    worker.on('message', (reply: WriterReply) => {
      const resolve = this.#waiting.get(reply.id)
      this.#waiting.delete(reply.id)
      if (this.#waiting.size === 0) worker.unref()
      resolve?.(reply)
    })
    worker.on('error', (err) => this.#fail(`ledger writer thread failed: ${err.message}`))
    worker.on('exit', (code) => this.#fail(`ledger writer thread exited (code ${code})`))
    this.#worker = worker
    return worker
  }

  commit(batch: WriteBatch): Promise<WriterReply> {
    if (this.#dead) return Promise.resolve({ id: 0, ok: false, message: this.#dead, permanent: true })
    const id = this.#nextId++
    const worker = this.#thread()
    // Referenced while a commit is in flight, so a process does not exit before its leaf is acknowledged.
    worker.ref()
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve)
      worker.postMessage({ id, ...batch } satisfies WriterRequest)
    })
  }

  #fail(message: string): void {
    if (this.#dead) return
    this.#dead = message
    for (const resolve of this.#waiting.values()) resolve({ id: 0, ok: false, message, permanent: true })
    this.#waiting.clear()
  }

  async close(): Promise<void> {
    const worker = this.#worker
    if (this.#dead || !worker) return
    const exited = once(worker, 'exit')
    worker.ref()
    worker.postMessage('close')
    await exited
  }
}

/** Writes synchronously on the given connection (in-memory databases only). */
export class InlineWriter implements LedgerWriter {
  readonly #store: LedgerStore
  #nextId = 1

  constructor(store: LedgerStore) {
    this.#store = store
  }

  commit(batch: WriteBatch): Promise<WriterReply> {
    return Promise.resolve(commitRequest(this.#store, { id: this.#nextId++, ...batch }, undefined, () => {}))
  }

  async close(): Promise<void> {}
}
