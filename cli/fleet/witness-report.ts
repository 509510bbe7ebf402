/**
 * What `svc ledger verify` says about witnesses: each cosignature in `$SVC_HOME/witness-state.json`, checked
 * against the witness key of the policy (`--witness-policy` or $SVC_WITNESS_POLICY) and against the ledger's
 * own signed checkpoint of that size, and whether the newest cosigned sizes satisfy the policy's quorum.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkpointText, LedgerStore } from '../../core/index.ts'
import { parseWitnessPolicy, readWitnessState, verifyCosignature, WITNESS_STATE_FILE } from '../../plugins/witness/index.ts'

export interface WitnessReport {
  readonly lines: string[]
  readonly problems: string[]
}

export function witnessReport(dbPath: string, policyFile: string | undefined): WitnessReport | undefined {
  const home = join(dbPath, '..')
  if (!existsSync(join(home, WITNESS_STATE_FILE))) return undefined
  const store = new LedgerStore(dbPath, { readOnly: true })
  try {
    const origin = store.meta('origin') ?? ''
    const state = readWitnessState(home, origin)
    const policy = policyFile ? parseWitnessPolicy(readFileSync(policyFile, 'utf8')) : undefined
    const rows = new Map(store.checkpoints().map((c) => [c.treeSize, c.root.toString('base64')]))
    const lines: string[] = []
    const problems: string[] = []
    const cosigned = new Set<string>()
    for (const [id, r] of Object.entries(state.witnesses)) {
      if (r.cosignature === '') {
        lines.push(`witness ${id}: nothing cosigned yet${r.error ? ` (${r.error})` : ''}`)
        continue
      }
      if (rows.get(r.tree_size) !== r.root) problems.push(`witness ${id} cosigned size ${r.tree_size} with a root this ledger never signed`)
      const w = policy?.witnesses.find((x) => x.id === id)
      if (w) {
        const v = verifyCosignature(r.cosignature, w, checkpointText(origin, r.tree_size, Buffer.from(r.root, 'base64')), Math.floor(Date.now() / 1000))
        if (v.ok) cosigned.add(id)
        else problems.push(`witness ${id}: ${v.reason}`)
      }
      lines.push(
        `witness ${id}: cosigned ${r.tree_size} leaves at ${new Date(r.timestamp * 1000).toISOString()}${w ? ' (verified)' : ' (no policy key to check it)'}${r.error ? `; last submission failed: ${r.error}` : ''}`,
      )
    }
    if (policy) lines.push(`witness quorum ${policy.quorum}: ${policy.satisfied(cosigned) ? 'met' : 'NOT met'}`)
    return { lines, problems }
  } finally {
    store.close()
  }
}
