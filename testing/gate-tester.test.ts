/** The gate tester itself: it enforces the kind's schema, pins exact reasons and catches an unsound index hint. */
import { describe, expect, it } from 'vitest'
import { defineGateKind } from '../core/plugin.ts'
import { runGateCases, type GateCases } from './gate-tester.ts'

const toolIs = (index?: (v: string) => { tools: string[] }) =>
  defineGateKind<string>({
    kind: 'tool_is',
    description: 'test',
    schema: { type: 'string', minLength: 1 },
    compile: (t) => (r) => (r.tool === t ? `tool ${t}` : undefined),
    ...(index ? { index } : {}),
  })

/** Runs the tester's cases with a collecting describe/it; returns each case's failure (or undefined). */
function outcomes(cases: GateCases, index?: (v: string) => { tools: string[] }): (string | undefined)[] {
  const tests: (() => unknown)[] = []
  runGateCases(toolIs(index), cases, { describe: (_n, fn) => fn(), it: (_n, fn) => void tests.push(fn) })
  return tests.map((t) => {
    try {
      t()
      return undefined
    } catch (err) {
      return (err as Error).message
    }
  })
}

describe('gate tester', () => {
  it('fails a value the schema refuses, a wrong exact reason, and an index hint that skips a flagged call', () => {
    expect(outcomes({ pass: [{ value: 7, request: { tool: 'A' } }], flag: [] })[0]).toMatch(/schema: value must be string/)
    expect(outcomes({ pass: [], flag: [{ value: 'A', request: { tool: 'A' }, reason: 'tool B' }] })[0]).toMatch(/tool A/)
    expect(outcomes({ pass: [], flag: [{ value: 'A', request: { tool: 'A' }, reason: 'tool A' }] })).toEqual([undefined])
    expect(outcomes({ pass: [], flag: [{ value: 'A', request: { tool: 'A' } }] }, () => ({ tools: ['Z'] }))[0]).toMatch(/index hint .* would skip/)
    expect(outcomes({ pass: [], flag: [{ value: 'A', request: { tool: 'A' } }] }, (v) => ({ tools: [v] }))).toEqual([undefined])
  })
})
