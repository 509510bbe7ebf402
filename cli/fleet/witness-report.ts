/**
 * What `svc ledger verify` says about witnesses: each cosignature in `$SVC_HOME/witness-state.json`, checked
 * against the witness key of the policy (`--witness-policy` or $SVC_WITNESS_POLICY) and against the ledger's
 * own signed checkpoint of that size, and whether the policy's quorum holds for the NEWEST signed checkpoint:
 * tlog-policy makes the quorum a property of one checkpoint, so cosignatures of an older size (which a fork shares
 * with the history it left) do not make the newest leaves witnessed. When the quorum holds only for an older size,
 * the report names that size and the leaves after it; with `strict` (an explicit `--witness-policy`) that is a
 * problem, otherwise a WARNING.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkpointText, LedgerStore } from '../../core/index.ts'
import { parseWitnessPolicy, readWitnessState, verifyCosignature, WITNESS_STATE_FILE } from '../../plugins/witness/index.ts'

export interface WitnessReport {
  readonly lines: string[]
  readonly problems: string[]
  /** The same, for `--json`. */
  readonly json: {
    readonly witnesses: { id: string; tree_size: number; verified: boolean | null; error?: string }[]
    quorum: { name: string; newest_size: number; met: boolean; covered_size: number } | null
  }
}

export function witnessReport(dbPath: string, policyFile: string | undefined, strict = false): WitnessReport | undefined {
  const home = join(dbPath, '..')
  if (!existsSync(join(home, WITNESS_STATE_FILE))) return undefined
  const store = new LedgerStore(dbPath, { readOnly: true })
  try {
    const origin = store.meta('origin') ?? ''
    const state = readWitnessState(home, origin)
    const policy = policyFile ? parseWitnessPolicy(readFileSync(policyFile, 'utf8')) : undefined
    const checkpoints = store.checkpoints()
    const rows = new Map(checkpoints.map((c) => [c.treeSize, c.root.toString('base64')]))
    const newest = checkpoints.at(-1)?.treeSize ?? 0
    const lines: string[] = []
    const problems: string[] = []
    const json: WitnessReport['json'] = { witnesses: [], quorum: null }
    /** Verified cosigned size per witness. */
    const cosigned = new Map<string, number>()
    for (const [id, r] of Object.entries(state.witnesses)) {
      if (r.cosignature === '') {
        lines.push(`witness ${id}: nothing cosigned yet${r.error ? ` (${r.error})` : ''}`)
        json.witnesses.push({ id, tree_size: 0, verified: null, ...(r.error ? { error: r.error } : {}) })
        continue
      }
      const ours = rows.get(r.tree_size) === r.root
      if (!ours) problems.push(`witness ${id} cosigned size ${r.tree_size} with a root this ledger never signed`)
      const w = policy?.witnesses.find((x) => x.id === id)
      let verified: boolean | null = null
      if (w) {
        const v = verifyCosignature(r.cosignature, w, checkpointText(origin, r.tree_size, Buffer.from(r.root, 'base64')), Math.floor(Date.now() / 1000))
        verified = v.ok
        if (v.ok && ours) cosigned.set(id, r.tree_size)
        else if (!v.ok) problems.push(`witness ${id}: ${v.reason}`)
      }
      json.witnesses.push({ id, tree_size: r.tree_size, verified, ...(r.error ? { error: r.error } : {}) })
      lines.push(
        `witness ${id}: cosigned ${r.tree_size} leaves at ${new Date(r.timestamp * 1000).toISOString()}${w ? ' (verified)' : ' (no policy key to check it)'}${r.error ? `; last submission failed: ${r.error}` : ''}`,
      )
    }
    if (policy) {
      // The quorum of one checkpoint: the witnesses that cosigned at least that size (a witness checks consistency
      // before it cosigns a larger one). The newest it covers is the largest cosigned size the quorum reaches.
      const at = (size: number) => new Set([...cosigned].filter(([, s]) => s >= size).map(([id]) => id))
      const met = newest > 0 && policy.satisfied(at(newest))
      const covered = met ? newest : Math.max(0, ...[...cosigned.values()].filter((s) => policy.satisfied(at(s))))
      json.quorum = { name: policy.quorum, newest_size: newest, met, covered_size: covered }
      if (met) lines.push(`witness quorum ${policy.quorum}: met for the newest checkpoint (size ${newest})`)
      else {
        const gap = `witness quorum ${policy.quorum}: NOT met for the newest checkpoint (size ${newest}); ${covered > 0 ? `it holds up to size ${covered}, so leaves seq ${covered}..${newest - 1} are not witnessed` : 'no checkpoint of this ledger reaches it'}`
        lines.push(gap)
        if (strict) problems.push(gap)
        else lines.push(`WARNING: ${gap}`)
      }
    }
    return { lines, problems, json }
  } finally {
    store.close()
  }
}
