/**
 * The ledger's writer thread. It owns the only write connection (WAL, synchronous=FULL), so the fsync of a
 * commit never blocks the daemon's event loop. Requests arrive one at a time (the ledger keeps one batch in
 * flight and queues the rest into the next batch: group commit). Before each commit it checks that the
 * database path still names the file it opened: a removed or replaced `$SVC_HOME` fails every later write
 * (fail closed) instead of writing into an unlinked file.
 */
import { statSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { appendCheckpointLog, type CheckpointLogEntry } from './checkpoint-log.ts'
import { LedgerStore, type CheckpointRow, type LeafWrite } from './store.ts'

/** What the thread is started with. */
export interface WriterInit {
  readonly path: string
  readonly checkpointLog?: string
  readonly busyTimeoutMs: number
  /** Identity of the file when the ledger was opened (the writer thread starts at the first commit). */
  readonly file: FileIdentity
}

export interface FileIdentity {
  readonly dev: number
  readonly ino: number
}

/** The identity of the file at `path` now. */
export function fileIdentity(path: string): FileIdentity {
  const { dev, ino } = statSync(path)
  return { dev, ino }
}

export interface WriterRequest {
  readonly id: number
  readonly leaves: readonly LeafWrite[]
  readonly checkpoints: readonly CheckpointRow[]
  readonly logEntries: readonly CheckpointLogEntry[]
}

export type WriterReply =
  | { readonly id: number; readonly ok: true; readonly logError?: string }
  | { readonly id: number; readonly ok: false; readonly message: string; readonly permanent: boolean }

/** Commits one request; shared by the thread and the in-process writer of in-memory ledgers. */
export function commitRequest(store: LedgerStore, req: WriterRequest, checkpointLog: string | undefined, assertFile: () => void): WriterReply {
  try {
    assertFile()
  } catch (err) {
    return { id: req.id, ok: false, message: (err as Error).message, permanent: true }
  }
  try {
    store.commitBatch(req.leaves, req.checkpoints)
  } catch (err) {
    return { id: req.id, ok: false, message: (err as Error).message, permanent: false }
  }
  if (checkpointLog && req.logEntries.length > 0) {
    try {
      appendCheckpointLog(checkpointLog, req.logEntries)
    } catch (err) {
      return { id: req.id, ok: true, logError: (err as Error).message }
    }
  }
  return { id: req.id, ok: true }
}

/** A check that `path` is still the file `first` (same device and inode). */
export function sameFileGuard(path: string, first: FileIdentity): () => void {
  return () => {
    let now
    try {
      now = statSync(path)
    } catch {
      throw new Error(`ledger file ${path} was removed while the daemon ran; refusing to write into an unlinked file`)
    }
    if (now.ino !== first.ino || now.dev !== first.dev) throw new Error(`ledger file ${path} was replaced while the daemon ran; refusing to write into a file nobody reads`)
  }
}

if (parentPort && (workerData as { svcLedgerWriter?: WriterInit } | undefined)?.svcLedgerWriter) {
  const init = (workerData as { svcLedgerWriter: WriterInit }).svcLedgerWriter
  const port = parentPort
  const store = new LedgerStore(init.path, { busyTimeoutMs: init.busyTimeoutMs })
  const assertFile = sameFileGuard(init.path, init.file)
  port.on('message', (req: WriterRequest | 'close') => {
    if (req === 'close') {
      store.close()
      port.close()
      return
    }
    port.postMessage(commitRequest(store, req, init.checkpointLog, assertFile))
  })
}
