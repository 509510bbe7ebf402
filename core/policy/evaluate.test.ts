/** The evaluator's trace is what the engine decided with: same matches, same short-circuits, every layer. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../engine.ts'
import { defineGateKind } from '../plugin.ts'
import { tempDir } from '../testing/ledger-fixtures.ts'
import type { GateTrace } from './evaluate.ts'

const toolIs = defineGateKind<string>({
  kind: 'tool_is',
  description: 'test: the call is to this tool',
  schema: { type: 'string' },
  compile: (tool) => (request) => (request.tool === tool ? `tool ${tool}` : undefined),
})

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
const { dir, cleanup } = tempDir('svc-evaluate-')
mkdirSync(join(dir, 'policies'))
writeFileSync(join(dir, 'policies', 'test.yaml'), POLICY)
const engine = await createEngine({ plugins: [toolIs], home: join(dir, 'home'), policiesDir: join(dir, 'policies'), log: pino({ level: 'silent' }) })
afterAll(async () => {
  await engine.close()
  cleanup()
})

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
    expect(any.children.map((c) => [c.kind, c.matched])).toEqual([['tool_is', undefined], ['tool_is', 'tool B']])
    const allNot = trace[1]!.node
    expect(allNot).toMatchObject({ op: 'all', matched: 'tool B; not matched' })
    expect(allNot.children[1]).toMatchObject({ op: 'not', matched: 'not matched', children: [{ op: 'leaf', kind: 'tool_is' }] })
    const { trace: missed } = await traced('A')
    expect(missed[1]!.node.children).toHaveLength(1)
  })
})
