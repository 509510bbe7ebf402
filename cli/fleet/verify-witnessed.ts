/**
 * Witness cosignatures in an archive, under a C2SP tlog-policy quorum: each cosignature must verify under its
 * witness's key (c2sp.org/tlog-cosignature) and name a root equal to the one rebuilt from the shipped leaves
 * at that size. A witnessed root that differs is a split view (the witnesses saw another history: FORKED);
 * a witnessed size beyond the shipped leaves means leaves were withheld (TRUNCATED); when no tree size is
 * cosigned by a quorum the machine is UNWITNESSED. Returns the largest size a quorum vouches for.
 */
import { checkpointText } from '../../core/index.ts'
import { verifyCosignature, type WitnessPolicy } from '../../plugins/witness/index.ts'
import type { ShippedLedger } from './archive.ts'
import type { MachineVerdict } from './verify-fleet.ts'

export function checkWitnessed(
  shipped: ShippedLedger,
  policy: WitnessPolicy,
  shippedLeaves: number,
  rootAt: (size: number) => Buffer | undefined,
  flag: (v: MachineVerdict, text: string) => void,
): number {
  const now = Math.floor(Date.now() / 1000)
  // Per witness, the largest size it validly cosigned with the rebuilt root.
  const vouched = new Map<string, number>()
  for (const c of shipped.cosignatures) {
    const w = policy.witnesses.find((x) => x.id === c.witness)
    if (!w) continue // not in this policy: ignored, as unknown keys are
    const body = checkpointText(shipped.origin, c.treeSize, c.root)
    const line = c.note.startsWith(`${body}\n`) ? c.note.slice(body.length + 1).split('\n')[0]! : ''
    const v = verifyCosignature(line, w, body, now)
    if (!v.ok) {
      flag('invalid', `cosignature record of ${c.witness} at size ${c.treeSize}: ${v.reason}`)
      continue
    }
    if (c.treeSize > shippedLeaves) {
      flag('truncated', `witness ${c.witness} cosigned ${c.treeSize} leaves but only ${shippedLeaves} were shipped`)
      continue
    }
    const rebuilt = rootAt(c.treeSize)
    if (rebuilt && !rebuilt.equals(c.root)) {
      flag('forked', `witness ${c.witness} cosigned another tree at size ${c.treeSize} than the shipped leaves build (split view)`)
      continue
    }
    vouched.set(c.witness, Math.max(vouched.get(c.witness) ?? 0, c.treeSize))
  }
  // The largest size S such that the witnesses that vouched for S or more (a prefix of their tree) meet the quorum.
  const sizes = [...new Set(vouched.values())].sort((a, b) => b - a)
  const witnessed = sizes.find((s) => policy.satisfied(new Set([...vouched].filter(([, v]) => v >= s).map(([id]) => id)))) ?? 0
  if (witnessed === 0 && !policy.satisfied(new Set())) flag('unwitnessed', `no checkpoint is cosigned by a quorum (${policy.quorum}) of witnesses`)
  return witnessed
}
