/**
 * `svc ledger verify` over a database with every core: the session table is built first (from the event
 * leaves, through the indexes), then aligned ranges of leaves are checked by worker threads, each with its own
 * read-only connection, and merged in seq order here: idle checks, the perfect-subtree nodes above a range,
 * the root, and every checkpoint (ledger.db and checkpoints.log). Memory stays bounded: a range is streamed.
 */
import { availableParallelism } from 'node:os'
import { startWorker } from '../core/worker-thread.ts'
import { CompactRange } from '../core/ledger/compact-range.ts'
import { GENESIS_PREV } from '../core/ledger/leaf.ts'
import { EMPTY_ROOT, hashChildren } from '../core/ledger/merkle.ts'
import { rootOfSize } from '../core/ledger/proof-build.ts'
import { LedgerStore } from '../core/ledger/store.ts'
import { verifierFor, type VerifierName } from './verifiers.ts'
import { verifyCheckpoints, type CheckpointLogInput } from './verify-checkpoints.ts'
import { IdleResolver, ProblemList, report, safeParse, type LedgerVerifyReport } from './verify-ledger.ts'
import type { TrustedHostKey } from './verify-sessions.ts'
import type { RangeResult } from './verify-range.ts'
import { buildSessionTable, type SessionTable } from './verify-sessions.ts'
import type { RangeJob, RangeReply, VerifyWorkerInit } from './verify-worker.ts'

/** Leaves per range: a power of two, so a range's nodes never depend on leaves outside it; small enough that
 * the threads finish together (the last range is the only one a thread can wait on). */
const RANGE_LEVEL = 12

export interface DatabaseVerifyOptions {
  readonly path: string
  readonly trustedHostKeys: readonly TrustedHostKey[]
  readonly verifier?: VerifierName
  readonly log?: CheckpointLogInput
  /** Worker threads (default: one per core). */
  readonly threads?: number
  /** log2 of the leaves per range (default 12; tests use small ranges to cross range boundaries). */
  readonly rangeLevel?: number
}

/** Runs ranges on a pool of verifier threads; results come back indexed by range. */
async function runRanges(init: VerifyWorkerInit, jobs: RangeJob[], threads: number): Promise<RangeResult[]> {
  const results: RangeResult[] = new Array(jobs.length)
  let next = 0
  const pool = Array.from({ length: Math.min(threads, jobs.length) }, () => startWorker(new URL('./verify-worker.ts', import.meta.url), { workerData: { svcLedgerVerify: init } }))
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const send = () => (next < jobs.length ? worker.postMessage(jobs[next++]) : resolve())
            worker.on('message', (reply: RangeReply) => {
              if ('error' in reply) return reject(new Error(`verifying leaves from seq ${jobs[reply.id]!.lo}: ${reply.error}`))
              results[reply.id] = reply.result
              send()
            })
            worker.on('error', reject)
            send()
          }),
      ),
    )
  } finally {
    await Promise.all(pool.map((w) => w.terminate()))
  }
  return results
}

export async function verifyLedgerDatabase(opts: DatabaseVerifyOptions): Promise<LedgerVerifyReport> {
  const store = new LedgerStore(opts.path, { readOnly: true })
  try {
    const problems = new ProblemList()
    const verifierName = opts.verifier ?? 'fast'
    const verify = await verifierFor(verifierName)
    const { count, maxSeq } = store.extent()
    const treeSize = maxSeq + 1
    if (count !== treeSize) problems.add(`ledger has ${count} leaves but its highest seq is ${maxSeq} (leaves were removed from the middle)`)
    const rangeLevel = opts.rangeLevel ?? RANGE_LEVEL
    const range = 2 ** rangeLevel
    const table: SessionTable = buildSessionTable(store.eventLeaves(), opts.trustedHostKeys, verify, problems.add)
    const jobs: RangeJob[] = []
    for (let lo = 0, id = 0; lo < treeSize; lo += range, id++) {
      jobs.push({ id, lo, hi: Math.min(lo + range, treeSize), prevHash: lo === 0 ? GENESIS_PREV : (store.leaf(lo - 1)?.leafHash.toString('hex') ?? GENESIS_PREV) })
    }
    const results = await runRanges({ path: opts.path, table, verifier: verifierName }, jobs, opts.threads ?? availableParallelism())
    const idle = new IdleResolver(table, problems.add)
    const upper = new CompactRange()
    let partialRoot: Buffer | undefined
    let signed = 0
    let unsigned = 0
    for (const [i, r] of results.entries()) {
      for (const p of r.problems) problems.add(p)
      problems.count += r.problemCount - r.problems.length
      if (r.count !== jobs[i]!.hi - jobs[i]!.lo) problems.add(`leaves ${jobs[i]!.lo}..${jobs[i]!.hi - 1}: ${r.count} found (gap)`)
      idle.range(r.idleChecks, r.lastSigned)
      signed += r.signed
      unsigned += r.unsigned
      const root = r.root ? Buffer.from(r.root) : undefined
      if (!root) continue
      if (r.count < range) {
        partialRoot = root
        continue
      }
      // Nodes above a range: the range roots are perfect subtrees of level rangeLevel.
      for (const node of upper.append(root).slice(1)) {
        const level = rangeLevel + node.level
        const stored = store.findNode(level, node.idx)
        if (!stored?.equals(node.hash)) problems.add(`stored node (${level}, ${node.idx}) ${stored ? 'differs from the recomputed hash' : 'is missing'}`)
      }
    }
    let root = partialRoot
    for (const peak of [...upper.peaks].reverse()) root = root ? hashChildren(peak, root) : peak
    const rootAt = (m: number): Buffer | undefined => {
      if (m === treeSize) return root
      try {
        return rootOfSize(store.readNode, m)
      } catch {
        return undefined
      }
    }
    const checkpoints = store.checkpoints()
    const covered = verifyCheckpoints({
      checkpoints,
      log: opts.log,
      origin: store.meta('origin'),
      treeSize,
      rootAt,
      table,
      verify,
      firstLeaf: treeSize > 0 ? safeParse(store.leaf(0)!.body) : undefined,
      problem: problems.add,
    })
    return report(
      problems,
      treeSize,
      (root ?? EMPTY_ROOT).toString('hex'),
      { signed, unsigned, sessions: table.sessions.size, checkpoints: checkpoints.length, logged: opts.log?.entries.length ?? 0 },
      covered,
    )
  } finally {
    store.close()
  }
}
