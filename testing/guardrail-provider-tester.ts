/**
 * The guardrail-provider author's contract (like ESLint's RuleTester): feed recorded vendor answers and
 * assert the mapped result; every provider also gets, for free, the failure kinds the spec turns into
 * abstentions (HTTP errors, non-JSON, empty, truncated, slow, dropped, unreachable, not configured), a
 * check that the credential goes out in a header, and a check that it never comes back in a result or
 * message. Each case talks real HTTP to a loopback server replaying the answer. Uses node:assert only.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { envPrefix, type GuardrailProviderPlugin, type ProviderTestResult } from '../core/index.ts'
import { createProviderRuntime } from '../guardrail-providers/kit/index.ts'
import type { Severity } from '../core/types.ts'
import { startVendorServer, type VendorReply } from './vendor-server.ts'

export interface ProviderAnswerCase {
  readonly name: string
  /** The vendor model name as the provider declares it (e.g. `omni-moderation-latest`). */
  readonly model: string
  /** The vendor's recorded answer. */
  readonly answer: VendorReply
  readonly text?: string
  /** The mapped result: `safe`, and every category that is not `none` with its severity. */
  readonly expect: { readonly safe: boolean; readonly categories: Readonly<Record<string, Severity>>; readonly rationale?: RegExp }
}

export interface ProviderCases {
  readonly answers: readonly ProviderAnswerCase[]
  /** Answers with a 200 status whose shape is off the documented one: each must abstain as malformed. */
  readonly malformed?: readonly { readonly name: string; readonly model: string; readonly answer: VendorReply }[]
}

type Suite = { describe(name: string, fn: () => void): void; it(name: string, fn: () => unknown): void }

/** A credential the kit hands the provider; it must never come back. */
export const KIT_SECRET = 'kit-secret-7c1e0f9a-do-not-leak'
// Generous: a loaded test machine must not turn a prompt answer into a timeout.
const TIMEOUT_MS = 1000
// The max_latency of the slow-answer case: its answer comes 4 s late, so a short budget proves the same
// abstention without the test waiting out the generous one.
const SLOW_CASE_TIMEOUT_MS = 50

/** Registers one test per recorded answer, per malformed answer and per standard failure kind. */
export function runProviderCases(plugin: GuardrailProviderPlugin, cases: ProviderCases, { describe, it }: Suite): void {
  const def = plugin.provider
  const prefix = envPrefix(def.id)
  const names = new Set<string>()
  for (const c of [...cases.answers, ...(cases.malformed ?? [])]) {
    assert.ok(!names.has(c.name), `duplicate provider case "${c.name}"`)
    names.add(c.name)
  }
  const classifiers = def.models.filter((m) => m.kind === 'classifier_model')
  assert.ok(classifiers.length > 0, `${def.id} declares no classifier_model`)
  const first = cases.answers[0]
  assert.ok(first, `${def.id}: give at least one recorded answer`)

  async function call(reply: VendorReply, model: string, opts: { key?: boolean; text?: string; baseUrl?: string; timeoutMs?: number } = {}) {
    const server = await startVendorServer(() => reply)
    try {
      const env = { [`${prefix}_BASE_URL`]: opts.baseUrl ?? server.url, ...(opts.key === false ? {} : { [`${prefix}_API_KEY`]: KIT_SECRET }) }
      const runtime = createProviderRuntime(def, env)
      const entry = runtime.models.find((m) => m.model === model)
      assert.ok(entry, `${def.id} has no model "${model}"`)
      const result = await runtime.test(entry, opts.text ?? 'kit probe text', opts.timeoutMs ?? TIMEOUT_MS)
      assert.ok(!JSON.stringify(result).includes(KIT_SECRET), 'the credential came back in a result or message')
      return { result, requests: server.requests }
    } finally {
      await server.close()
    }
  }
  const abstains = (result: ProviderTestResult, kinds: readonly string[]) => {
    assert.equal(result.result, undefined, `expected an abstention, got a result ${JSON.stringify(result.result)}`)
    assert.ok(result.abstained && kinds.includes(result.abstained.kind), `expected abstention ${kinds.join('|')}, got ${JSON.stringify(result.abstained)}`)
  }

  describe(`guardrail provider ${def.id}`, () => {
    it('has a recorded answer for every classifier model', () => {
      const covered = new Set(cases.answers.map((c) => c.model))
      assert.deepEqual(
        classifiers.map((m) => m.model).filter((m) => !covered.has(m)),
        [],
      )
    })
    for (const c of cases.answers) {
      it(`maps: ${c.name}`, async () => {
        const { result, requests } = await call(c.answer, c.model, { text: c.text })
        assert.ok(result.result, `expected a result, got ${JSON.stringify(result.abstained)}`)
        assert.equal(result.result.safe, c.expect.safe)
        const raised = Object.fromEntries(
          Object.entries(result.result.categories)
            .filter(([, v]) => v.severity !== 'none')
            .map(([k, v]) => [k, v.severity]),
        )
        assert.deepEqual(raised, c.expect.categories)
        for (const [name, v] of Object.entries(result.result.categories)) assert.equal(v.raw, v.severity !== 'none', `${name}: raw flag and severity disagree`)
        if (c.expect.rationale) assert.match(result.result.rationale, c.expect.rationale)
        assert.equal(requests.length, 1)
        if (def.needsKey)
          assert.ok(
            Object.values(requests[0]!.headers).some((v) => String(v).includes(KIT_SECRET)),
            'the credential was not sent in a header',
          )
      })
    }
    for (const c of cases.malformed ?? []) {
      it(`abstains on a malformed answer: ${c.name}`, async () => abstains((await call(c.answer, c.model)).result, ['malformed_answer']))
    }
    const model = first.model
    const recorded = 'json' in first.answer ? JSON.stringify(first.answer.json) : JSON.stringify({ padding: 'x'.repeat(64) })
    const failures: [string, VendorReply, readonly string[], number?][] = [
      ['HTTP 500 (whose body echoes the key)', { json: { error: { message: `invalid key ${KIT_SECRET}` } }, status: 500 }, ['provider_error']],
      ['HTTP 429', { json: { error: 'rate limited' }, status: 429 }, ['provider_error']],
      ['an answer that is not JSON', { text: '<html>gateway error</html>' }, ['malformed_answer']],
      ['an empty answer', { text: '' }, ['malformed_answer']],
      ['a truncated answer', { truncated: recorded, sendBytes: Math.floor(recorded.length / 2) }, ['malformed_answer']],
      ['a JSON answer of the wrong shape', { json: { unexpected: true } }, ['malformed_answer']],
      ['an answer slower than max_latency', { ...(first.answer as object), delayMs: TIMEOUT_MS * 4 } as VendorReply, ['timeout'], SLOW_CASE_TIMEOUT_MS],
      ['a dropped connection', { drop: true }, ['provider_error']],
      ['a redirect (the credential must not follow it)', { json: {}, status: 307, headers: { location: 'http://127.0.0.1:9/elsewhere' } }, ['provider_error']],
    ]
    for (const [name, reply, kinds, timeoutMs] of failures) {
      it(`abstains on ${name}`, async () => abstains((await call(reply, model, { timeoutMs })).result, kinds))
    }
    it('abstains when the provider is unreachable', async () => {
      const { result } = await call(first.answer, model, { baseUrl: `http://127.0.0.1:${await closedPort()}` })
      abstains(result, ['provider_error'])
      assert.equal(result.reachable, false)
    })
    if (def.needsKey) {
      it(`abstains as not configured without ${prefix}_API_KEY, and sends nothing`, async () => {
        const { result, requests } = await call(first.answer, model, { key: false })
        abstains(result, ['not_configured'])
        assert.equal(requests.length, 0)
      })
    }
  })
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
