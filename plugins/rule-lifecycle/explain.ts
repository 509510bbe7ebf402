/**
 * Explains one gate's `when` block from the engine's own trace (`Engine.decide(…, trace)`): which leaves
 * held, which did not, and so why the gate matched or not. Nothing is evaluated here, so the explanation
 * is exactly what the daemon's evaluator did.
 */
import type { GateTrace, LayerName, NodeTrace } from '../../core/index.ts'

/** The outcome of one `when` node and the reason. */
export interface NodeExplanation {
  /** What matched (as the engine reports it), or undefined when the node does not hold. */
  readonly matched?: string
  /** One line saying why it holds or not. */
  readonly why: string
}

/** Says why a traced node held or not. */
export function explainNode(node: NodeTrace): NodeExplanation {
  switch (node.op) {
    case 'leaf':
      return node.matched === undefined ? { why: `${node.kind}: no match` } : { matched: node.matched, why: `${node.kind}: ${node.matched}` }
    case 'all': {
      // The evaluator stops at the first child that does not hold: it is the last one traced.
      const miss = node.children.find((c) => c.matched === undefined)
      if (miss) return { why: `all: ${explainNode(miss).why}` }
      const parts = node.children.map((c) => c.matched!)
      return { matched: parts.join('; '), why: parts.join('; ') }
    }
    case 'any': {
      const hit = node.children.find((c) => c.matched !== undefined)
      if (hit) return explainNode(hit)
      const misses = node.children.map((c) => explainNode(c).why)
      return { why: `any: none of ${misses.length} alternatives held (${summarise(misses)})` }
    }
    case 'not': {
      const r = explainNode(node.children[0]!)
      return r.matched === undefined ? { matched: 'not matched', why: `not: ${r.why}` } : { why: `not: excluded, ${r.why}` }
    }
  }
}

function summarise(items: readonly string[]): string {
  const unique = [...new Set(items)]
  return unique.length > 3 ? `${unique.slice(0, 3).join('; ')}; ...` : unique.join('; ')
}

/** One evaluated gate as `svc explain` and the dashboard show it. */
export interface GateLine {
  readonly layer: LayerName
  readonly source: string
  readonly id: string
  readonly on_hit: string
  /** The pack a daemon-layer gate ships in (its file's name: `databases` for policies/databases.yaml). */
  readonly pack?: string
  readonly matched: boolean
  readonly why: string
}

/** Every gate the evaluator ran, in order, with whether it matched and why. */
export function explainGates(trace: readonly GateTrace[]): GateLine[] {
  return trace.map(({ layer, gate, matched, node }) => ({
    layer,
    source: gate.source,
    id: gate.id,
    on_hit: gate.evaluators.length > 0 ? 'guardrail' : gate.onHit,
    ...packOf(gate),
    matched: matched !== undefined,
    why: explainNode(node).why,
  }))
}

/** A daemon-layer pack file's gates belong to the pack of its name; the operator's own policy.yaml is no pack. */
function packOf(gate: GateTrace['gate']): { pack?: string } {
  const file = gate.loc.file.split(/[\\/]/).pop() ?? ''
  return gate.layer === 'daemon' && /\.ya?ml$/.test(file) && file !== 'policy.yaml' ? { pack: file.replace(/\.ya?ml$/, '') } : {}
}
