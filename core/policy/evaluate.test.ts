/** The evaluator's trace is what the engine decided with: same matches, same short-circuits, every layer. */
import { afterAll, describe, expect, it } from 'vitest'
import { testEngine } from '../../testing/test-engine.ts'
import type { GateTrace } from './evaluate.ts'

const POLICY = `version: 1
mode: firewall
gates:
  - id: t.any
    when:
      any: [{ tool_is: A }, { tool_is: B }, { tool_is: C }]
  - id: t.all-not
    when:
      all: [{ tool_is: B }, { not: { tool_is: A } }]
  - id: t.never
    when: { tool_is: Z }
`
const engine = await testEngine(POLICY)
afterAll(() => engine.close())

async function traced(tool: string) {
  const trace: GateTrace[] = []
  const { decision } = await engine.decide({ sessionId: 's', source: 'test', tool, input: {} }, undefined, trace)
  return { decision, trace }
}

describe('evaluator trace', () => {
  it('records every gate of every layer, and matches exactly the gates the decision hit', async () => {
    for (const tool of ['A', 'B', 'Q']) {
      const { decision, trace } = await traced(tool)
      expect(trace.map((t) => t.gate.id)).toEqual(['t.any', 't.all-not', 't.never'])
      expect(trace.filter((t) => t.matched !== undefined).map((t) => t.gate.id)).toEqual(decision.hits.map((h) => h.gateId))
    }
  })

  it('shows the short-circuit: `any` stops at the first hit, `all` at the first miss', async () => {
    const { trace } = await traced('B')
    const any = trace[0]!.node
    expect(any).toMatchObject({ op: 'any', matched: 'tool B' })
    expect(any.children.map((c) => [c.kind, c.matched])).toEqual([
      ['tool_is', undefined],
      ['tool_is', 'tool B'],
    ])
    const allNot = trace[1]!.node
    expect(allNot).toMatchObject({ op: 'all', matched: 'tool B; not matched' })
    expect(allNot.children[1]).toMatchObject({ op: 'not', matched: 'not matched', children: [{ op: 'leaf', kind: 'tool_is' }] })
    const { trace: missed } = await traced('A')
    expect(missed[1]!.node.children).toHaveLength(1)
  })
})
