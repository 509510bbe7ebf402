/** The API contract of the foundation endpoints, and bad input getting problem+json with no side effects. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
let sid: string
beforeAll(async () => {
  d = await startTestDaemon()
  sid = await d.session()
})
afterAll(() => d.stop())

const bash = (command: string, extra: Record<string, unknown> = {}) => ({ session_id: sid, source: 'claude-code', tool: 'Bash', input: { command }, ...extra })

describe('GET /v1/health', () => {
  it('answers ok with the version', async () => {
    const res = await d.request('GET', '/v1/health')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) })
  })
})

describe('POST /v1/gates/check', () => {
  it('denies a built-in destructive command with rule, reason, nudge and ledger seq', async () => {
    const res = await d.request('POST', '/v1/gates/check', bash('rm -rf ~'))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ verdict: 'deny', rule_id: 'fs.rm-root-or-home', nudge: expect.any(String), ledger_seq: expect.any(Number) })
    expect(Object.keys(res.body).sort()).toEqual(['ledger_seq', 'nudge', 'reason', 'rule_id', 'verdict'])
  })

  it('allows an everyday command with an empty rule id and no nudge', async () => {
    const res = await d.request('POST', '/v1/gates/check', bash('npm test', { cwd: '/tmp', meta: { tool_use_id: 'toolu_1' } }))
    expect(res.body).toEqual({ verdict: 'allow', rule_id: '', reason: 'no gate matched', ledger_seq: expect.any(Number) })
  })

  it('writes one durable ledger leaf per check, with the spec fields, in order', async () => {
    const a = await d.request('POST', '/v1/gates/check', bash('git reset --hard HEAD~1', { meta: { tool_use_id: 'toolu_9' } }))
    const b = await d.request('POST', '/v1/gates/check', bash('ls'))
    expect(b.body.ledger_seq).toBe(a.body.ledger_seq + 1)
    const entry = d.engine.ledger.get(a.body.ledger_seq)!
    expect(entry).toMatchObject({ verdict: 'deny', ruleId: 'git.reset-hard', source: 'claude-code', tool: 'Bash', toolUseId: 'toolu_9', signer: 'unattested', monitorMatch: false })
    expect(entry.policyTrace).toEqual([{ layer: 'daemon', source: 'daemon', verdict: 'deny', rule_id: 'git.reset-hard' }])
    expect(entry.payloadHash).toMatch(/^[0-9a-f]{64}$/)
    expect(d.engine.ledger.get(b.body.ledger_seq)!.prevLeafHash).toBe(entry.leafHash)
  })

  it('denies an unknown session with a clear reason and still records it', async () => {
    const before = d.engine.ledger.size()
    const res = await d.request('POST', '/v1/gates/check', { ...bash('ls'), session_id: 'ses_nope' })
    expect(res.body.verdict).toBe('deny')
    expect(res.body.reason).toMatch(/unknown session "ses_nope".*svc session create/)
    expect(d.engine.ledger.size()).toBe(before + 1)
    expect(d.engine.ledger.get(res.body.ledger_seq)).toMatchObject({ verdict: 'deny', signer: 'none', sessionId: 'ses_nope' })
  })

  it('never answers ask, whatever the input', async () => {
    for (const command of ['', ' ', 'rm -rf /', '\u0000', 'x'.repeat(10_000)]) {
      const res = await d.request('POST', '/v1/gates/check', bash(command))
      expect(['allow', 'deny']).toContain(res.body.verdict)
    }
  })
})

describe('bad input gets problem+json and changes nothing', () => {
  const cases: [string, unknown, number, RegExp][] = [
    ['malformed JSON', '{"session_id": ', 400, /not valid JSON/],
    ['a wrong type', { session_id: 'x', source: 'claude-code', tool: 'Bash', input: 'rm -rf /' }, 400, /field "input" must be object/],
    ['a missing field', { session_id: 'x', source: 'claude-code', input: {} }, 400, /missing required field "tool"/],
    ['an unknown field', { session_id: 'x', source: 'claude-code', tool: 'Bash', input: {}, verdict: 'allow' }, 400, /unknown field "verdict"/],
    ['a 2 MB body', { session_id: 'x', source: 'claude-code', tool: 'Bash', input: { command: 'a'.repeat(2 * 1024 * 1024) } }, 413, /larger than/],
    ['a JSON array', '[]', 400, /must be object/],
  ]
  for (const [name, body, status, detail] of cases) {
    it(`refuses ${name}`, async () => {
      const before = d.engine.ledger.size()
      const res = await d.request('POST', '/v1/gates/check', body)
      expect(res.status).toBe(status)
      expect(res.type).toContain('application/problem+json')
      expect(res.body).toMatchObject({ type: expect.stringContaining('/problems/'), title: expect.any(String), status, code: expect.any(String) })
      expect(res.body.detail).toMatch(detail)
      expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.ts:\d+/)
      expect(d.engine.ledger.size()).toBe(before)
    })
  }

  it('answers an unknown route with a 404 problem', async () => {
    const res = await d.request('GET', '/v1/nope')
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ code: 'not_found', detail: 'no route GET /v1/nope' })
  })

  it('refuses a non-JSON content type', async () => {
    const res = await d.request('POST', '/v1/gates/check', 'session_id=x', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(res.status).toBe(415)
    expect(res.type).toContain('application/problem+json')
  })
})

describe('GET /v1/gates and /v1/policy/view', () => {
  it('counts hits per gate and records the last hit', async () => {
    await d.request('POST', '/v1/gates/check', bash('git push --force origin main'))
    const res = await d.request('GET', '/v1/gates')
    const gate = res.body.gates.find((g: { id: string }) => g.id === 'git.force-push')
    expect(gate).toMatchObject({ source: 'daemon', matched_count: expect.any(Number), last_hit_at: expect.stringMatching(/^\d{4}-/) })
    expect(gate.matched_count).toBeGreaterThanOrEqual(1)
  })

  it('shows every gate with source, mode, disabled state and a stable hash', async () => {
    const a = await d.request('GET', '/v1/policy/view')
    const b = await d.request('GET', '/v1/policy/view')
    expect(a.body.policy_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(a.body.policy_hash).toBe(b.body.policy_hash)
    expect(a.body.status).toBe('ok')
    expect(a.body.gates.length).toBeGreaterThan(3)
    for (const g of a.body.gates) {
      expect(g).toMatchObject({ id: expect.any(String), source: 'daemon', policy_mode: 'firewall', disabled: false, when: expect.any(Object) })
      expect(g.nudge).toEqual(expect.any(String))
    }
  })
})
