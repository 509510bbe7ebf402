/** What the live policy shows of itself: the gates a layer contributes to a call, its files' status and its warnings. */
import type { LayerName, Mode } from '../types.ts'
import type { CompiledGate } from './compiled.ts'
import type { FileProblem } from './policy-file.ts'

/** The gates one layer contributes to a call. */
export interface LayerGates {
  readonly layer: LayerName
  /** A stable list (rebuilt on reload, never per call), so its index is built once (see gate-index.ts). */
  readonly gates: readonly CompiledGate[]
  /** Ids disabled for this call by a repo layer's sealed false-positive replacement. */
  readonly exclude?: ReadonlySet<string>
}

export interface PolicyWarning {
  readonly file: string
  readonly gateId: string
  readonly message: string
}

export interface PolicyFileStatus {
  readonly path: string
  readonly layer: LayerName
  readonly source: string
  readonly status: 'ok' | 'error' | 'absent'
  readonly mode?: Mode
  readonly gates: number
  readonly error?: FileProblem
}
