/**
 * A verifier thread of `svc ledger verify`: opens the database read-only and checks the ranges of leaves it
 * is sent (verify-range.ts) against the session table it was started with.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { verifierFor, type VerifierName } from './verifiers.ts'
import { LedgerStore } from '../core/ledger/store.ts'
import { RangeReader } from './verify-reader.ts'
import { verifyRange, type RangeResult } from './verify-range.ts'
import type { SessionTable } from './verify-sessions.ts'

export interface VerifyWorkerInit {
  readonly path: string
  readonly table: SessionTable
  readonly verifier: VerifierName
}

export interface RangeJob {
  readonly id: number
  readonly lo: number
  readonly hi: number
  readonly prevHash: string
}

export type RangeReply = { readonly id: number; readonly result: RangeResult } | { readonly id: number; readonly error: string }

const init = (workerData as { svcLedgerVerify?: VerifyWorkerInit } | undefined)?.svcLedgerVerify
if (parentPort && init) {
  const port = parentPort
  const store = new LedgerStore(init.path, { readOnly: true })
  const reader = new RangeReader(store.db)
  const verify = await verifierFor(init.verifier)
  port.on('message', (job: RangeJob | 'close') => {
    if (job === 'close') {
      store.close()
      port.close()
      return
    }
    try {
      const result = verifyRange({ lo: job.lo, prevHash: job.prevHash, leaves: reader.leaves(job.lo, job.hi), table: init.table, verify, storedNode: reader.nodes(job.lo, job.hi) })
      port.postMessage({ id: job.id, result } satisfies RangeReply)
    } catch (err) {
      port.postMessage({ id: job.id, error: (err as Error).message } satisfies RangeReply)
    }
  })
}
