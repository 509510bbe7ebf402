/**
 * The gate index only skips gates that cannot match: over generated gates and calls every gate that matches
 * is among the candidates. Over the whole corpus, test/corpus/corpus.test.ts decides every case both with the
 * index and running every gate, and requires the same decision (one pass over the corpus, not two).
 */
import fc from 'fast-check'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { applyPlugins, createHooks, createRegistries, type EvalRequest } from '../core/index.ts'
import { GateCompiler } from '../core/policy/compile.ts'
import { evaluateNode } from '../core/policy/evaluate.ts'
import { GateIndex } from '../core/policy/gate-index.ts'
import { testContext, testRequest } from '../testing/gate-tester.ts'
import { builtinPlugins } from '../plugins/index.ts'

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
    fc
      .record({ program: oneOrList(programPattern) }, { requiredKeys: [] })
      .chain((c) =>
        fc
          .record({ args_any: fc.constantFrom('-f', '--hard', '*') }, { requiredKeys: [] })
          .map((a) => ({ command: Object.keys({ ...c, ...a }).length ? { ...c, ...a } : { args_any: '*' } })),
      ),
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
        shell: {
          raw: commands.map((c) => [c.program, ...c.args].join(' ')).join('; '),
          commands: commands.map((c) => ({ program: c.program, argv: [c.program, ...c.args], text: [c.program, ...c.args].join(' '), via: [] })),
          signals: signal ? ['pipe_to_shell'] : [],
        },
      }),
  )

  it('every gate that matches a call is among its candidates, in policy order', () => {
    fc.assert(
      fc.property(fc.array(when, { minLength: 1, maxLength: 12 }), fc.array(request, { minLength: 1, maxLength: 6 }), (whens, requests) => {
        const gates = compiler.compileAll(
          whens.map((w, i) => ({ value: { id: `g${i}`, when: w }, loc: { file: 'gen.yaml' } })),
          origin,
        )
        const index = new GateIndex(gates)
        const ctx = testContext()
        for (const req of requests) {
          const candidates = index.candidates(req)
          expect(candidates.map((g) => gates.indexOf(g))).toEqual([...candidates.map((g) => gates.indexOf(g))].sort((a, b) => a - b))
          for (const gate of gates) {
            const matched = evaluateNode(gate.node!, req, ctx)
            if (matched !== undefined) expect(candidates, `${JSON.stringify(gate.when)} on ${req.tool}`).toContain(gate)
            // Without a trace an `any` runs only the children its index keeps; with one, every child: the same answer.
            expect(matched, `${JSON.stringify(gate.when)} on ${req.tool}, children pruned`).toBe(evaluateNode(gate.node!, req, ctx, []))
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})
