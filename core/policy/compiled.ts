/** The compiled form of a policy's gates: what the compiler produces and the index, evaluator and views read. */
import type { CompiledLeaf, LeafHook } from '../hooks.ts'
import type { CompiledEvaluator, IndexKeys, LayerName, Mode, OnHit, SourceLoc } from '../types.ts'

/** A `when` tree node, ready to run. */
export type CompiledNode =
  | { readonly op: 'all' | 'any'; readonly nodes: readonly CompiledNode[] }
  | { readonly op: 'not'; readonly node: CompiledNode }
  | { readonly op: 'leaf'; readonly leaf: CompiledLeaf; readonly hook: LeafHook }

/** Metadata of a false-positive replacement that disables a gate (bound to the daemon by a seal). */
export interface DisabledBy {
  readonly event_seq: number
  readonly at: string
  readonly replacement_id: string
  readonly note: string
  readonly seal: string
}

export interface CompiledGate {
  readonly id: string
  readonly description?: string
  readonly layer: LayerName
  readonly source: string
  readonly loc: SourceLoc
  readonly policyMode: Mode
  readonly onHit: OnHit
  readonly requireStrong: boolean
  readonly nudge?: string
  readonly disabled: boolean
  readonly disabledBy?: DisabledBy
  /** The match block as written (for views and bundles). */
  readonly when: Readonly<Record<string, unknown>>
  readonly evaluate: readonly Readonly<Record<string, unknown>>[]
  /**
   * Guardrail evaluators (a gate with `evaluate` is a guardrail gate: its `match` selects the calls its
   * evaluators classify after a local allow; it is never a local hit itself).
   */
  readonly evaluators: readonly CompiledEvaluator[]
  /** sha256 of the canonical gate definition and its source: identifies this exact gate. */
  readonly fingerprint: string
  /** Absent for a bare disable marker (a `disabled: true` entry with no match block). */
  readonly node?: CompiledNode
  /** What a call needs for this gate to match (see gate-index.ts); absent when its `when` cannot say. */
  readonly keys?: IndexKeys
}

export interface GateOrigin {
  readonly layer: LayerName
  readonly source: string
  readonly policyMode: Mode
  readonly severity?: OnHit
}
