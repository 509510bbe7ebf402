/**
 * The rule author's contract for gate kinds (like ESLint's RuleTester): pass/flag/badConfig cases run
 * under any test framework that provides describe/it. Uses node:assert only.
 */
import assert from 'node:assert/strict'
import type { GateKindPlugin } from '../plugin.ts'
import type { EvalContext, EvalRequest, ToolCall } from '../types.ts'

export interface GateCase {
  readonly name?: string
  readonly value: unknown
  readonly request: Partial<EvalRequest> & Pick<ToolCall, 'tool'>
  readonly ctx?: Partial<EvalContext>
}

export interface GateCases {
  /** The leaf must not hold. */
  readonly pass: readonly GateCase[]
  /** The leaf must hold. */
  readonly flag: readonly GateCase[]
  /** Values the kind must refuse at load, with the message expected. */
  readonly badConfig?: readonly { readonly value: unknown; readonly message: RegExp }[]
}

type Suite = { describe(name: string, fn: () => void): void; it(name: string, fn: () => unknown): void }

/** Builds a full EvalRequest from a partial one (empty derived fields). */
export function testRequest(partial: GateCase['request']): EvalRequest {
  return { sessionId: 'ses_test', source: 'test', input: {}, paths: [], urls: [], ...partial }
}

/** An evaluation context for gate tests: time 0, home `/home/tester`, overridable. */
export function testContext(partial: Partial<EvalContext> = {}): EvalContext {
  return { now: 0, home: '/home/tester', ...partial }
}

/** Registers one test per case of a gate kind (pass, flag, bad config) with the given describe/it. */
export function runGateCases(plugin: GateKindPlugin, cases: GateCases, { describe, it }: Suite): void {
  const kind = plugin.gateKind
  const where = { gateId: 'test-gate', loc: { file: 'test.yaml' } }
  const seen = new Set<string>()
  for (const c of [...cases.pass, ...cases.flag]) {
    const key = JSON.stringify([c.value, c.request])
    assert.ok(!seen.has(key), `duplicate test case ${key}`)
    seen.add(key)
  }
  describe(`gate kind ${kind.kind}`, () => {
    for (const c of cases.pass) {
      it(c.name ?? `passes ${JSON.stringify(c.request)} for ${JSON.stringify(c.value)}`, () => {
        const hit = kind.compile(c.value, where)(testRequest(c.request), testContext(c.ctx))
        assert.equal(hit, undefined, `expected no match, got "${hit}"`)
      })
    }
    for (const c of cases.flag) {
      it(c.name ?? `flags ${JSON.stringify(c.request)} for ${JSON.stringify(c.value)}`, () => {
        const hit = kind.compile(c.value, where)(testRequest(c.request), testContext(c.ctx))
        assert.equal(typeof hit, 'string', 'expected a match')
      })
    }
    for (const b of cases.badConfig ?? []) {
      it(`rejects ${JSON.stringify(b.value)}`, () => assert.throws(() => kind.compile(b.value, where), b.message))
    }
  })
}
