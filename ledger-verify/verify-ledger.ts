/**
 * Whole-ledger offline verification (`svc ledger verify`): every leaf's bytes are canonical JCS at the right
 * seq and chained to the previous leaf hash; every session certificate is signed by a trusted host key of the
 * same signer kind; every signed leaf verifies under its session key within the session's validity, and every
 * unsigned leaf is one the unsigned-leaf rule permits (verify-sessions.ts); the recomputed tree matches every
 * checkpoint, in ledger.db and in checkpoints.log, whose notes must verify under the session key named; leaves
 * no verified checkpoint covers are reported. Touches no state; needs only SHA-256 and Ed25519.
 * This is the single-thread form (exports, tests); verify-parallel.ts checks a database with worker threads.
 */
import type { SignatureVerifier } from '../core/ledger/ed25519.ts'
import { GENESIS_PREV, type LeafObject } from '../core/ledger/leaf.ts'
import { EMPTY_ROOT } from '../core/ledger/merkle.ts'
import { verifyCheckpoints, type CheckpointLogInput, type CheckpointRecord } from './verify-checkpoints.ts'
import { MAX_REPORTED, verifyRange, type LeafRecord } from './verify-range.ts'
import { buildSessionTable, idleProblem, type IdleCheck, type SessionTable, type TrustedHostKey } from './verify-sessions.ts'

export type { CheckpointRecord } from './verify-checkpoints.ts'
export type { LeafRecord } from './verify-range.ts'

/** A host public key the verifier trusts, with the signer kind it may certify. */
export interface LedgerVerifyReport {
  readonly ok: boolean
  readonly treeSize: number
  readonly root: string
  readonly counts: { readonly signed: number; readonly unsigned: number; readonly sessions: number; readonly checkpoints: number; readonly logged: number }
  /** First problems found (at most 50), each naming the seq or checkpoint. */
  readonly problems: readonly string[]
  readonly problemCount: number
  /** Leaves no verified signed checkpoint covers (they could be cut off unnoticed), or null. */
  readonly uncovered: { readonly from: number; readonly to: number } | null
}

/** Collects problems, keeping the first MAX_REPORTED. */
export class ProblemList {
  readonly list: string[] = []
  count = 0
  readonly add = (text: string): void => {
    this.count++
    if (this.list.length < MAX_REPORTED) this.list.push(text)
  }
}

const EVENT_TYPES = new Set(['session', 'ledger'])

/** The event leaves of an in-memory list (what the database finds through its index). */
export function eventRecords(leaves: readonly LeafRecord[]): { seq: number; body: string }[] {
  return leaves.filter((l) => {
    try {
      return EVENT_TYPES.has((JSON.parse(l.body) as LeafObject).type)
    } catch {
      return false
    }
  })
}

/** Resolves idle checks in seq order given, per range, when each session last signed. */
export class IdleResolver {
  readonly #lastSigned = new Map<string, number>()
  readonly #table: SessionTable
  readonly #problem: (text: string) => void

  constructor(table: SessionTable, problem: (text: string) => void) {
    this.#table = table
    this.#problem = problem
  }

  range(checks: readonly IdleCheck[], lastSigned: ReadonlyMap<string, number>): void {
    for (const c of checks) {
      const last = c.localLastSigned ?? this.#lastSigned.get(c.sessionId) ?? this.#table.sessions.get(c.sessionId)!.certTs
      const p = idleProblem(c, last)
      if (p) this.#problem(p)
    }
    for (const [id, ts] of lastSigned) this.#lastSigned.set(id, ts)
  }
}

/** Verifies a complete ledger given its leaves in seq order, its checkpoints and (optionally) the checkpoint log. */
export function verifyLedger(input: {
  readonly leaves: readonly LeafRecord[]
  readonly checkpoints?: readonly CheckpointRecord[]
  readonly log?: CheckpointLogInput
  readonly origin?: string
  readonly trustedHostKeys: readonly TrustedHostKey[]
  readonly verify: SignatureVerifier
  /** When given (fsck of a database), every stored perfect-subtree hash is compared with the recomputed one. */
  readonly storedNode?: (level: number, idx: number) => Buffer | undefined
}): LedgerVerifyReport {
  const problems = new ProblemList()
  const table = buildSessionTable(eventRecords(input.leaves), input.trustedHostKeys, input.verify, problems.add)
  const checkpoints = input.checkpoints ?? []
  const wantRootsAt = new Set([...checkpoints.map((c) => c.treeSize), ...(input.log?.entries ?? []).map((e) => e.tree_size)])
  const range = verifyRange({ lo: 0, prevHash: GENESIS_PREV, leaves: input.leaves, table, verify: input.verify, storedNode: input.storedNode, wantRootsAt })
  for (const p of range.problems) problems.add(p)
  problems.count += range.problemCount - range.problems.length
  new IdleResolver(table, problems.add).range(range.idleChecks, range.lastSigned)
  const first = input.leaves[0] ? safeParse(input.leaves[0].body) : undefined
  const covered = verifyCheckpoints({
    checkpoints,
    log: input.log,
    origin: input.origin,
    treeSize: range.count,
    rootAt: (m) => range.rootsAt.get(m),
    table,
    verify: input.verify,
    firstLeaf: first,
    problem: problems.add,
  })
  return report(
    problems,
    range.count,
    (range.root ?? EMPTY_ROOT).toString('hex'),
    { signed: range.signed, unsigned: range.unsigned, sessions: table.sessions.size, checkpoints: checkpoints.length, logged: input.log?.entries.length ?? 0 },
    covered,
  )
}

export function safeParse(body: string): LeafObject | undefined {
  try {
    return JSON.parse(body) as LeafObject
  } catch {
    return undefined
  }
}

export function report(problems: ProblemList, treeSize: number, root: string, counts: LedgerVerifyReport['counts'], covered: number): LedgerVerifyReport {
  return {
    ok: problems.count === 0,
    treeSize,
    root,
    counts,
    problems: problems.list,
    problemCount: problems.count,
    uncovered: covered < treeSize ? { from: covered, to: treeSize - 1 } : null,
  }
}
