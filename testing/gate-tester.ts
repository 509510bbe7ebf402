/**
 * The rule author's contract for gate kinds (like ESLint's RuleTester): pass/flag/badConfig cases run
 * under any test framework that provides describe/it. Every value must satisfy the kind's JSON Schema
 * (as a policy load enforces it), a flag case may pin its exact reason, and a kind with an index hint
 * must never hint away a call it flags (the policy would skip the gate). Uses node:assert only.
 */
import assert from 'node:assert/strict'
import { Ajv } from 'ajv'
import type { GateKind, GateKindPlugin } from '../core/plugin.ts'
import type { IndexKeys } from '../core/types.ts'
import { admits } from '../core/policy/gate-index.ts'
import type { EvalContext, EvalRequest, ToolCall } from '../core/types.ts'

export interface GateCase {
  readonly name?: string
  readonly value: unknown
  readonly request: Partial<EvalRequest> & Pick<ToolCall, 'tool'>
  readonly ctx?: Partial<EvalContext>
  /** For a flag case: the exact description the leaf must give of what matched. */
  readonly reason?: string
}

export interface GateCases {
  /** The leaf must not hold. */
  readonly pass: readonly GateCase[]
  /** The leaf must hold. */
  readonly flag: readonly GateCase[]
  /** Values the kind must refuse at load (by its schema or its compile), with the message expected. */
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
  const validate = new Ajv({ allErrors: false, strict: false }).compile(kind.schema)
  // What a policy load does with a value: the schema first, then the kind's compile.
  const load = (value: unknown) => {
    if (!validate(value)) throw new Error(`schema: ${validate.errors?.[0]?.instancePath || 'value'} ${validate.errors?.[0]?.message ?? 'is invalid'}`)
    return kind.compile(value, where)
  }
  const seen = new Set<string>()
  for (const c of [...cases.pass, ...cases.flag]) {
    const key = JSON.stringify([c.value, c.request])
    assert.ok(!seen.has(key), `duplicate test case ${key}`)
    seen.add(key)
  }
  describe(`gate kind ${kind.kind}`, () => {
    for (const c of cases.pass) {
      it(c.name ?? `passes ${JSON.stringify(c.request)} for ${JSON.stringify(c.value)}`, () => {
        const hit = load(c.value)(testRequest(c.request), testContext(c.ctx))
        assert.equal(hit, undefined, `expected no match, got "${hit}"`)
      })
    }
    for (const c of cases.flag) {
      it(c.name ?? `flags ${JSON.stringify(c.request)} for ${JSON.stringify(c.value)}`, () => {
        const request = testRequest(c.request)
        const hit = load(c.value)(request, testContext(c.ctx))
        assert.equal(typeof hit, 'string', 'expected a match')
        if (c.reason !== undefined) assert.equal(hit, c.reason)
        assertIndexAdmits(kind, c.value, request)
      })
    }
    for (const b of cases.badConfig ?? []) {
      it(`rejects ${JSON.stringify(b.value)}`, () => assert.throws(() => load(b.value), b.message))
    }
  })
}

/** A flagged call must have what the kind's index hint says it needs, or the policy would skip the gate. */
function assertIndexAdmits(kind: GateKind, value: unknown, request: EvalRequest): void {
  const keys: IndexKeys | undefined = kind.index?.(value)
  if (!keys) return
  assert.ok(admits(keys, request), `index hint ${JSON.stringify(keys)} would skip this flagged call (tool ${request.tool})`)
}
