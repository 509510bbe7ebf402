/**
 * Explains one gate's `when` block against a normalised request: which leaves held, which did not, and
 * so why the gate matched or not. Uses the same compiled leaves and hooks as the engine.
 */
import type { CompiledGate, EvalContext, EvalRequest } from '../../core/index.ts'

type Node = NonNullable<CompiledGate['node']>

/** The outcome of one `when` node and the reason. */
export interface NodeExplanation {
  /** What matched (as the engine reports it), or undefined when the node does not hold. */
  readonly matched?: string
  /** One line saying why it holds or not. */
  readonly why: string
}

/** Evaluates `node` like the engine and says why. */
export function explainNode(node: Node, request: EvalRequest, ctx: EvalContext): NodeExplanation {
  switch (node.op) {
    case 'leaf': {
      const matched = node.hook.call(node.leaf, request, ctx) ?? undefined
      return matched === undefined ? { why: `${node.leaf.kind}: no match` } : { matched, why: `${node.leaf.kind}: ${matched}` }
    }
    case 'all': {
      const parts: string[] = []
      for (const child of node.nodes) {
        const r = explainNode(child, request, ctx)
        if (r.matched === undefined) return { why: `all: ${r.why}` }
        parts.push(r.matched)
      }
      return { matched: parts.join('; '), why: parts.join('; ') }
    }
    case 'any': {
      const misses: string[] = []
      for (const child of node.nodes) {
        const r = explainNode(child, request, ctx)
        if (r.matched !== undefined) return r
        misses.push(r.why)
      }
      return { why: `any: none of ${misses.length} alternatives held (${summarise(misses)})` }
    }
    case 'not': {
      const r = explainNode(node.node, request, ctx)
      return r.matched === undefined ? { matched: 'not matched', why: `not: ${r.why}` } : { why: `not: excluded, ${r.why}` }
    }
  }
}

function summarise(items: readonly string[]): string {
  const unique = [...new Set(items)]
  return unique.length > 3 ? `${unique.slice(0, 3).join('; ')}; ...` : unique.join('; ')
}
