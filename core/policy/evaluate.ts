/**
 * The one evaluator of compiled `when` trees. The engine runs it for every gate of every layer; given a
 * trace, it also records what each node did, which is all `svc explain` prints, so the explanation and
 * the daemon's decision cannot drift apart.
 */
import type { EvalContext, EvalRequest, LayerName } from '../types.ts'
import type { CompiledGate, CompiledNode } from './compiled.ts'
import { anyCandidates } from './gate-index.ts'

/** What one `when` node did as the evaluator ran it: children it skipped (short-circuit) are absent. */
export interface NodeTrace {
  readonly op: CompiledNode['op']
  /** The predicate kind of a leaf. */
  readonly kind?: string
  /** What matched (as the gate kind describes it), or undefined when the node did not hold. */
  readonly matched?: string
  readonly children: readonly NodeTrace[]
}

/** One evaluated gate of a decision, in evaluation order. */
export interface GateTrace {
  readonly layer: LayerName
  readonly gate: CompiledGate
  readonly matched?: string
  readonly node: NodeTrace
}

/** Runs a compiled node; returns what matched, or undefined. With `trace`, appends this node's trace to it. */
export function evaluateNode(node: CompiledNode, request: EvalRequest, ctx: EvalContext, trace?: NodeTrace[]): string | undefined {
  if (!trace) return run(node, request, ctx, undefined)
  const children: NodeTrace[] = []
  const matched = run(node, request, ctx, children)
  trace.push({ op: node.op, ...(node.op === 'leaf' ? { kind: node.leaf.kind } : {}), ...(matched !== undefined ? { matched } : {}), children })
  return matched
}

function run(node: CompiledNode, request: EvalRequest, ctx: EvalContext, trace: NodeTrace[] | undefined): string | undefined {
  switch (node.op) {
    case 'leaf':
      return node.hook.call(node.leaf, request, ctx) ?? undefined
    case 'all': {
      const parts: string[] = []
      for (const child of node.nodes) {
        const hit = evaluateNode(child, request, ctx, trace)
        if (hit === undefined) return undefined
        parts.push(hit)
      }
      return parts.join('; ')
    }
    case 'any':
      // Only the children that can hold run, as with gates; a trace (svc explain) runs and shows every one.
      for (const child of trace ? node.nodes : anyCandidates(node.nodes, request)) {
        const hit = evaluateNode(child, request, ctx, trace)
        if (hit !== undefined) return hit
      }
      return undefined
    case 'not':
      return evaluateNode(node.node, request, ctx, trace) === undefined ? 'not matched' : undefined
  }
}
