/**
 * `svc fleet verify`: for each machine (ledger origin) in an OTLP archive, rebuild its tree from the shipped
 * leaf bodies and check it with the same verifier as `svc ledger verify` (leaf hashes, chain, session
 * certificates against the trusted host keys, leaf signatures, every checkpoint's note and root against the
 * rebuilt tree, which also proves each checkpoint consistent with the ones before it). On top of that, what
 * only shipping can show: a seq shipped twice with different bytes or two signed checkpoints of one size with
 * different roots (FORKED), a checkpoint arriving after a larger one (WENT BACK), and signed checkpoints over
 * leaves that were never shipped (TRUNCATED / withheld).
 */
import { hashChildren, hashLeaf, type SignatureVerifier } from '../../core/index.ts'
import { verifyLedger, type TrustedHostKey } from '../../ledger-verify/index.ts'
import type { WitnessPolicy } from '../../plugins/witness/index.ts'
import type { ShippedLedger } from './archive.ts'
import { checkWitnessed } from './verify-witnessed.ts'

export type MachineVerdict = 'ok' | 'forked' | 'went_back' | 'truncated' | 'invalid' | 'unwitnessed'

export interface MachineReport {
  readonly origin: string
  readonly hosts: readonly string[]
  readonly verdict: MachineVerdict
  readonly leaves: number
  readonly checkpoints: number
  /** Largest tree size a verified checkpoint covers. */
  readonly checkpointed: number
  readonly root: string
  /** With a witness policy: the largest tree size a quorum of witnesses cosigned (0: none). */
  readonly witnessed?: number
  readonly problems: readonly string[]
}

/** Checks one machine's shipped ledger. */
export function verifyMachine(shipped: ShippedLedger, trusted: readonly TrustedHostKey[], verify: SignatureVerifier, policy?: WitnessPolicy): MachineReport {
  const problems: string[] = []
  const verdicts = new Set<MachineVerdict>()
  const flag = (v: MachineVerdict, text: string) => {
    verdicts.add(v)
    problems.push(text)
  }
  // One body per seq; a second, different body for a seq is a fork (two histories shipped under one origin).
  const bySeq = new Map<number, { body: string; sig: Buffer | null }>()
  let maxSeen = -1
  for (const l of shipped.leaves) {
    const seen = bySeq.get(l.seq)
    if (seen && seen.body !== l.body) flag('forked', `seq ${l.seq} was shipped twice with different leaves`)
    else if (!seen) bySeq.set(l.seq, { body: l.body, sig: l.sig })
    if (l.seq < maxSeen && !seen) flag('went_back', `seq ${l.seq} arrived after seq ${maxSeen}`)
    maxSeen = Math.max(maxSeen, l.seq)
  }
  let contiguous = 0
  while (bySeq.has(contiguous)) contiguous++
  const shippedMax = Math.max(-1, ...bySeq.keys())
  if (shippedMax >= contiguous) flag('truncated', `leaves missing from seq ${contiguous} (shipped up to seq ${shippedMax})`)

  const bySize = new Map<number, Buffer>()
  let largest = 0
  for (const c of shipped.checkpoints) {
    const other = bySize.get(c.treeSize)
    if (other && !other.equals(c.root)) flag('forked', `two checkpoints of size ${c.treeSize} with different roots`)
    if (c.treeSize < largest && !other) flag('went_back', `a checkpoint of size ${c.treeSize} arrived after one of size ${largest}`)
    bySize.set(c.treeSize, c.root)
    largest = Math.max(largest, c.treeSize)
  }
  if (largest > contiguous) flag('truncated', `a signed checkpoint covers ${largest} leaves but only ${contiguous} were shipped`)

  const leaves = Array.from({ length: contiguous }, (_, seq) => ({ seq, ...bySeq.get(seq)! }))
  // Each distinct checkpoint once; the ones beyond the shipped leaves were reported above.
  const unique = new Map(shipped.checkpoints.filter((c) => c.treeSize <= contiguous).map((c) => [`${c.treeSize}/${c.root.toString('hex')}`, c]))
  const report = verifyLedger({ origin: shipped.origin, leaves, checkpoints: [...unique.values()], trustedHostKeys: trusted, verify })
  for (const p of report.problems) flag('invalid', p)
  const witnessed = policy ? checkWitnessed(shipped, policy, contiguous, (size) => (size === 0 ? undefined : rootAt(leaves, size)), flag) : undefined
  const order: MachineVerdict[] = ['forked', 'went_back', 'truncated', 'invalid', 'unwitnessed']
  return {
    origin: shipped.origin,
    hosts: [...shipped.hosts],
    verdict: order.find((v) => verdicts.has(v)) ?? 'ok',
    leaves: contiguous,
    checkpoints: unique.size,
    checkpointed: report.uncovered ? report.uncovered.from : report.treeSize,
    root: report.root,
    ...(witnessed === undefined ? {} : { witnessed }),
    problems,
  }
}

/** RFC 6962 root of the first `size` leaves (MTH by recursion; archives are small next to the ledger). */
function rootAt(leaves: readonly { body: string }[], size: number): Buffer {
  const mth = (lo: number, n: number): Buffer => {
    if (n === 1) return hashLeaf(Buffer.from(leaves[lo]!.body, 'utf8'))
    let k = 1
    while (k * 2 < n) k *= 2
    return hashChildren(mth(lo, k), mth(lo + k, n - k))
  }
  return mth(0, size)
}
