/**
 * The gate index only skips gates that cannot match: over the whole corpus the indexed decision equals
 * running every gate, and over generated gates and calls every gate that matches is among the candidates.
 */
import fc from 'fast-check'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyPlugins, createHooks, createRegistries, type EvalRequest } from '../core/index.ts'
import { GateCompiler } from '../core/policy/compile.ts'
import { evaluateNode } from '../core/policy/evaluate.ts'
import { GateIndex } from '../core/policy/gate-index.ts'
import { testContext, testRequest } from '../core/testing/gate-tester.ts'
import { builtinPlugins } from '../plugins/index.ts'
import { createCorpusWorld, loadCorpus, type CorpusWorld } from './corpus/harness.ts'

describe('gate index over the corpus', () => {
  let world: CorpusWorld
  beforeAll(async () => {
    world = await createCorpusWorld()
  })
  afterAll(() => world?.close())

  it('decides every corpus case exactly as running every gate does', { timeout: 180_000 }, async () => {
    const cases = [...loadCorpus('deny'), ...loadCorpus('allow')].flatMap((f) => f.cases)
    expect(cases.length).toBeGreaterThan(500)
    let skipped = 0
    for (const c of cases) {
      const full: NonNullable<Parameters<CorpusWorld['decide']>[2]> = []
      const everyGate = await world.decide(c, {}, full)
      const indexed = await world.decide(c)
      const label = c.cmd ?? JSON.stringify(c.input)
      expect(indexed.decision.hits, label).toEqual(everyGate.decision.hits)
      expect([indexed.decision.verdict, indexed.decision.ruleId], label).toEqual([everyGate.decision.verdict, everyGate.decision.ruleId])
      // An analysis refusal (no gate runs) names which of its time or size budgets ran out, which can differ between two runs.
      if (!everyGate.request.shell?.error) expect(indexed.decision.reason, label).toBe(everyGate.decision.reason)
      expect(full.filter((t) => t.matched !== undefined).map((t) => t.gate.id), label).toEqual(everyGate.decision.hits.map((h) => h.gateId))
      const candidates = world.engine.policy.gatesFor(indexed.request, world.engine.evalContext()).reduce((n, l) => n + new GateIndex(l.gates).candidates(indexed.request).length, 0)
      skipped += full.length - candidates
    }
    expect(skipped, 'the built-in policy indexes some gates').toBeGreaterThan(0)
  })
})

describe('gate index over generated gates (property)', () => {
  const hooks = createHooks()
  const registry = createRegistries()
  applyPlugins(builtinPlugins, { hooks, registry, log: pino({ level: 'silent' }), home: '/nonexistent' })
  const compiler = new GateCompiler(registry, hooks)
  const origin = { layer: 'daemon', source: 'daemon', policyMode: 'firewall' } as const

  const tools = ['Bash', 'Read', 'Write', 'mcp__gh__issue', 'bash']
  const programs = ['git', 'rm', 'curl', 'Git', 'npm']
  const toolPattern = fc.constantFrom(...tools, 'mcp__*', 'B*', 'Rea?', '{Read,Write}', '*')
  const programPattern = fc.constantFrom(...programs, 'g*', '{rm,curl}', '*')
  const oneOrList = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.array(arb, { minLength: 1, maxLength: 3 }))
  const leaf = fc.oneof(
    oneOrList(toolPattern).map((tool) => ({ tool })),
    fc.record({ program: oneOrList(programPattern) }, { requiredKeys: [] }).chain((c) => fc.record({ args_any: fc.constantFrom('-f', '--hard', '*') }, { requiredKeys: [] }).map((a) => ({ command: Object.keys({ ...c, ...a }).length ? { ...c, ...a } : { args_any: '*' } }))),
    fc.constantFrom({ signal: 'pipe_to_shell' }, { path: '~/.ssh/**' }),
  )
  const when: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((all) => ({ all })),
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((any) => ({ any })),
      tie('node').map((not) => ({ not })),
    ),
  })).node
  const command = fc.record({ program: fc.constantFrom(...programs, 'ls'), args: fc.array(fc.constantFrom('-f', '--hard', 'x'), { maxLength: 2 }) })
  const request = fc.record({ tool: fc.constantFrom(...tools, 'Edit'), commands: fc.array(command, { maxLength: 3 }), signal: fc.boolean() }).map(
    ({ tool, commands, signal }): EvalRequest =>
      testRequest({
        tool,
        paths: ['/home/tester/.ssh/id_rsa'],
        shell: { raw: commands.map((c) => [c.program, ...c.args].join(' ')).join('; '), commands: commands.map((c) => ({ program: c.program, argv: [c.program, ...c.args], text: [c.program, ...c.args].join(' '), via: [] })), signals: signal ? ['pipe_to_shell'] : [] },
      }),
  )

  it('every gate that matches a call is among its candidates, in policy order', () => {
    fc.assert(
      fc.property(fc.array(when, { minLength: 1, maxLength: 12 }), fc.array(request, { minLength: 1, maxLength: 6 }), (whens, requests) => {
        const gates = compiler.compileAll(whens.map((w, i) => ({ value: { id: `g${i}`, when: w }, loc: { file: 'gen.yaml' } })), origin)
        const index = new GateIndex(gates)
        const ctx = testContext()
        for (const req of requests) {
          const candidates = index.candidates(req)
          expect(candidates.map((g) => gates.indexOf(g))).toEqual([...candidates.map((g) => gates.indexOf(g))].sort((a, b) => a - b))
          for (const gate of gates) {
            if (evaluateNode(gate.node!, req, ctx) !== undefined) expect(candidates, `${JSON.stringify(gate.when)} on ${req.tool}`).toContain(gate)
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})
