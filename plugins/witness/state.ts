/**
 * Per-witness state, `$SVC_HOME/witness-state.json` (written atomically): for each witness the newest
 * checkpoint it cosigned — size, root, the verified cosignature line — and the last error. The size is the
 * `old` of the next add-checkpoint call.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writePrivateFile, type CosignatureView } from '../../core/index.ts'

export interface WitnessRecord {
  readonly tree_size: number
  readonly root: string
  readonly cosignature: string
  readonly timestamp: number
  readonly error?: string
}

export interface WitnessState {
  readonly origin: string
  readonly witnesses: Record<string, WitnessRecord>
}

export const WITNESS_STATE_FILE = 'witness-state.json'

export function readWitnessState(home: string, origin: string): WitnessState {
  const path = join(home, WITNESS_STATE_FILE)
  if (!existsSync(path)) return { origin, witnesses: {} }
  const doc = JSON.parse(readFileSync(path, 'utf8')) as WitnessState
  return doc.origin === origin && typeof doc.witnesses === 'object' ? doc : { origin, witnesses: {} }
}

export function writeWitnessState(home: string, state: WitnessState): void {
  writePrivateFile(join(home, WITNESS_STATE_FILE), `${JSON.stringify(state, null, 2)}\n`)
}

/** The newest cosignature of each witness as kept beside the ledger (what `svc export` ships without a daemon). */
export function witnessCosignatures(home: string, origin: string): CosignatureView[] {
  return Object.entries(readWitnessState(home, origin).witnesses).map(([witness, r]) => ({ witness, ...r }))
}
