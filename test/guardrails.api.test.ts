/**
 * Guardrails end to end: a real daemon over HTTP, with loopback servers speaking the OpenAI moderation,
 * Llama Guard (OpenAI-compatible chat) and Azure Content Safety wire formats. Proves thresholds, per-model
 * overrides, caching, abstention on every failure kind, evaluation order (requests counted at the
 * servers), monitor mode, the on/off switch, the staged traces and ledger leaves, the endpoints, and that
 * no credential appears in any response, log line, trace or file under $SVC_HOME.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VendorServer } from '../testing/vendor-server.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { azureServer, llamaGuardServer, openaiServer } from './helpers/guardrail-vendors.ts'

const KEYS = { OPENAI_API_KEY: 'sk-test-guardrail-SECRET-1f2e3d4c', AZURE_CONTENT_SAFETY_API_KEY: 'az-SECRET-9a8b7c6d5e', LLAMA_GUARD_API_KEY: 'lg-SECRET-5d4c3b2a' }

const POLICY = `version: 1
gates:
  - id: guard.bash
    match: { tool: Bash }
    evaluate:
      - kind: llm_guardrail
        model: openai/omni-moderation-latest
        prompt_field: input.command
        context_fields: [session.signer, input.description]
        on_threshold:
          - { category: any, severity: ">= high", action: deny }
        cache_ttl: 1m
        max_latency: 2s
  - id: guard.write
    match: { tool: Write }
    evaluate:
      - kind: llm_guardrail
        model: llama-guard/llama-guard3:8b
        prompt_field: input.content
        on_threshold: [{ category: indiscriminate_weapons, severity: "= critical", action: deny }]
        max_latency: 2s
      - kind: llm_guardrail
        model: azure-content-safety/text-analyze-8
        prompt_field: input.content
        on_threshold:
          - { category: violence, severity: ">= critical", action: deny }
          - { category: any, severity: ">= medium", action: monitor }
        max_latency: 2s
      - kind: llm_guardrail
        model: azure-content-safety/blocklists
        prompt_field: input.content
        on_threshold: [{ category: any, severity: ">= high", action: deny }]
`

let d: TestDaemon
let openai: VendorServer
let llama: VendorServer
let azure: VendorServer
let session: string
let token: string
const logLines: string[] = []
const bodies: string[] = []

async function req(method: string, path: string, body?: unknown, auth = false) {
  const res = await d.request(method, path, body, auth ? { authorization: `Bearer ${token}` } : {})
  bodies.push(JSON.stringify(res.body))
  return res
}
const bash = (command: string, extra: Record<string, unknown> = {}) =>
  req('POST', '/v1/gates/check', { session_id: session, source: 'test', tool: 'Bash', input: { command, ...extra } })
const write = (content: string) =>
  req('POST', '/v1/gates/check', { session_id: session, source: 'test', tool: 'Write', input: { file_path: '/tmp/svc-guardrail-test/notes.txt', content } })
const trace = async (seq: number) => (await req('GET', `/v1/guardrails/traces/${seq}`)).body
const leaf = async (seq: number) => JSON.parse(Buffer.from((await req('GET', `/v1/ledger/proof/${seq}`)).body.leaf, 'base64').toString('utf8'))

beforeAll(async () => {
  ;[openai, llama, azure] = await Promise.all([openaiServer(), llamaGuardServer(), azureServer()])
  const home = tempDir('svc-guardrails-')
  writeFileSync(join(home, 'policy.yaml'), POLICY)
  const log = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) })
  d = await startTestDaemon({
    home,
    log,
    env: { ...KEYS, OPENAI_BASE_URL: `${openai.url}/v1`, LLAMA_GUARD_BASE_URL: `${llama.url}/v1`, AZURE_CONTENT_SAFETY_BASE_URL: azure.url },
  })
  session = await d.session()
  token = (await d.request('POST', '/v1/auth/login', { password: 'correct horse battery' })).body.token
})

afterAll(async () => {
  await d?.stop()
  await Promise.all([openai?.close(), llama?.close(), azure?.close()])
})

describe('guardrails over HTTP', () => {
  it('allows a call the classifier finds safe, with local, guardrail and final stages apart', async () => {
    const res = await bash('echo hello', { description: 'greet' })
    expect(res.body).toMatchObject({ verdict: 'allow' })
    const sent = openai.requests.at(-1)!
    expect(sent.path).toBe('/v1/moderations')
    expect(sent.headers.authorization).toBe(`Bearer ${KEYS.OPENAI_API_KEY}`)
    expect(sent.body).toEqual({ model: 'omni-moderation-latest', input: 'echo hello\n\nsession.signer: unattested\ninput.description: greet' })
    const t = await trace(res.body.ledger_seq)
    expect(t.local).toMatchObject({ verdict: 'allow', ledger_verdict: 'allow' })
    expect(t.guardrail).toMatchObject({ verdict: 'allow', ran: true, enabled: true })
    expect(t.guardrail.evaluators).toHaveLength(1)
    expect(t.guardrail.evaluators[0]).toMatchObject({
      gate_id: 'guard.bash',
      provider: 'openai',
      model: 'openai/omni-moderation-latest',
      effect: 'allow',
      abstained: false,
      cached: false,
    })
    expect(t.guardrail.evaluators[0].categories.violence).toEqual({ severity: 'none', raw: false })
    expect(t.guardrail.evaluators[0].latency_ms).toBeGreaterThan(0)
    expect(t.final).toMatchObject({ verdict: 'allow', decided_by: 'local' })
  })

  it('denies on a flag meeting the threshold, never as a rule hit; the leaf says the guardrail decided', async () => {
    const res = await bash('echo VIOLENT plan')
    expect(res.body).toMatchObject({ verdict: 'deny', rule_id: '' })
    expect(res.body.reason).toMatch(/^guardrail openai\/omni-moderation-latest \(gate guard\.bash\): violence=high meets any >= high/)
    expect(res.body.nudge).toBeUndefined()
    const t = await trace(res.body.ledger_seq)
    expect(t.local).toMatchObject({ verdict: 'allow', rule_id: '' })
    expect(t.guardrail).toMatchObject({ verdict: 'deny' })
    expect(t.guardrail.evaluators[0]).toMatchObject({ effect: 'deny', matched: ['violence'], categories: { violence: { severity: 'high', raw: true } } })
    expect(t.final).toMatchObject({ verdict: 'deny', ledger_verdict: 'deny', rule_id: '', decided_by: 'guardrail' })
    const l = await leaf(res.body.ledger_seq)
    expect(l).toMatchObject({ verdict: 'deny', rule_id: '', stage: 'guardrail' })
  })

  it('applies per-model overrides: harassment is medium on omni (below >= high), sexual/minors critical', async () => {
    const harass = await bash('echo HARASS them')
    expect(harass.body.verdict).toBe('allow')
    expect((await trace(harass.body.ledger_seq)).guardrail.evaluators[0].categories.harassment).toEqual({ severity: 'medium', raw: true })
    const minor = await bash('echo MINOR content')
    expect(minor.body.verdict).toBe('deny')
    expect((await trace(minor.body.ledger_seq)).guardrail.evaluators[0].categories['sexual/minors']).toEqual({ severity: 'critical', raw: true })
  })

  it('never sends a locally denied call to a provider (requests counted at the server)', async () => {
    const before = openai.requests.length
    const res = await bash('rm -rf /')
    expect(res.body.verdict).toBe('deny')
    expect(res.body.rule_id).not.toBe('')
    expect(openai.requests.length).toBe(before)
    const t = await trace(res.body.ledger_seq)
    expect(t.guardrail).toMatchObject({ verdict: 'not_run', ran: false })
    expect(t.guardrail.why).toMatch(/only after a local allow/)
    expect(t.final).toMatchObject({ verdict: 'deny', decided_by: 'local' })
    expect((await leaf(res.body.ledger_seq)).stage).toBeUndefined()
  })

  it('caches identical payloads for cache_ttl: one provider request for two checks', async () => {
    const before = openai.requests.length
    const first = await bash('echo cache me')
    const second = await bash('echo cache me')
    expect(openai.requests.length).toBe(before + 1)
    expect((await trace(first.body.ledger_seq)).guardrail.evaluators[0].cached).toBe(false)
    expect((await trace(second.body.ledger_seq)).guardrail.evaluators[0].cached).toBe(true)
    await bash('echo cache me too')
    expect(openai.requests.length).toBe(before + 2)
  })

  it.each([
    ['E500', 'provider_error', /HTTP 500/],
    ['JUNK', 'malformed_answer', /not JSON/],
    ['TRUNC', 'malformed_answer', /cut off|not JSON/],
    ['DROP', 'provider_error', /unreachable|cut off/],
    ['SLOW', 'timeout', /max_latency/],
  ])('abstains on %s (%s): the local allow stands, the trace says why, the log says so', async (word, kind, why) => {
    const logged = logLines.length
    const res = await bash(`echo ${word} VIOLENT`)
    expect(res.body.verdict).toBe('allow')
    expect(logLines.slice(logged).map((l) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({ msg: 'guardrail abstained', mode: 'firewall', abstained: expect.objectContaining({ kind }) }),
    )
    const t = await trace(res.body.ledger_seq)
    expect(t.guardrail.verdict).toBe('abstain')
    expect(t.guardrail.evaluators[0]).toMatchObject({ effect: 'abstain', abstained: true, abstain_kind: kind })
    expect(t.guardrail.evaluators[0].why).toMatch(why)
    expect(t.final).toMatchObject({ verdict: 'allow', decided_by: 'local' })
  })

  it('runs several evaluators in one gate: Llama Guard, Azure (ordinal), an account_policy entry that abstains', async () => {
    const safe = await write('meeting notes')
    expect(safe.body.verdict).toBe('allow')
    const t = await trace(safe.body.ledger_seq)
    expect(t.guardrail.evaluators.map((e: { model: string; effect: string }) => [e.model, e.effect])).toEqual([
      ['llama-guard/llama-guard3:8b', 'allow'],
      ['azure-content-safety/text-analyze-8', 'allow'],
      ['azure-content-safety/blocklists', 'abstain'],
    ])
    expect(t.guardrail.evaluators[2]).toMatchObject({ abstain_kind: 'unsupported_entry' })
    expect(azure.requests.at(-1)!.headers['ocp-apim-subscription-key']).toBe(KEYS.AZURE_CONTENT_SAFETY_API_KEY)
    expect(azure.requests.at(-1)!.path).toBe('/contentsafety/text:analyze?api-version=2024-09-01')
    expect(llama.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEYS.LLAMA_GUARD_API_KEY}`)
  })

  it('abstains when the call lacks the prompt field', async () => {
    const res = await req('POST', '/v1/gates/check', { session_id: session, source: 'test', tool: 'Write', input: { file_path: '/tmp/svc-guardrail-test/empty.txt' } })
    expect(res.body.verdict).toBe('allow')
    const t = await trace(res.body.ledger_seq)
    expect(t.guardrail.evaluators.map((e: { abstain_kind: string }) => e.abstain_kind)).toEqual(['missing_field', 'missing_field', 'unsupported_entry'])
    expect(t.guardrail.evaluators[0].why).toMatch(/no input\.content/)
  })

  it('Llama Guard S9 is critical on the 8B entry (= critical denies); later evaluators are skipped', async () => {
    const before = azure.requests.length
    const res = await write('how to build a WEAPON')
    expect(res.body.verdict).toBe('deny')
    const t = await trace(res.body.ledger_seq)
    expect(t.guardrail.evaluators.map((e: { effect: string }) => e.effect)).toEqual(['deny', 'skipped', 'skipped'])
    expect(t.guardrail.evaluators[0].categories.indiscriminate_weapons).toEqual({ severity: 'critical', raw: true })
    expect(azure.requests.length).toBe(before)
  })

  it('Azure eight levels: 7 is critical (deny), 3 is medium (a monitor alert, not a deny)', async () => {
    const gore = await write('GORE scene')
    expect(gore.body.verdict).toBe('deny')
    expect((await trace(gore.body.ledger_seq)).guardrail.evaluators[1]).toMatchObject({ effect: 'deny', categories: { violence: { severity: 'critical', raw: true } } })
    const mild = await write('MILD scene')
    expect(mild.body.verdict).toBe('allow')
    const t = await trace(mild.body.ledger_seq)
    expect(t.guardrail.verdict).toBe('monitor')
    expect(t.final).toMatchObject({ verdict: 'allow', ledger_verdict: 'monitor_alert', decided_by: 'guardrail' })
  })

  it('monitor mode: a guardrail deny becomes a monitor alert, and abstentions are logged', async () => {
    expect((await req('PATCH', '/v1/mode', { mode: 'monitor' }, true)).status).toBe(200)
    try {
      const res = await bash('echo VIOLENT in monitor mode')
      expect(res.body.verdict).toBe('allow')
      const t = await trace(res.body.ledger_seq)
      expect(t.guardrail.verdict).toBe('deny')
      expect(t.final).toMatchObject({ verdict: 'allow', ledger_verdict: 'monitor_alert', rule_id: '', decided_by: 'guardrail' })
      expect((await leaf(res.body.ledger_seq)).stage).toBe('guardrail')
      // A local deny that monitor mode lets through is still a local deny: no provider hears of it.
      const before = openai.requests.length
      const local = await bash('rm -rf /')
      expect(local.body.verdict).toBe('allow')
      expect(openai.requests.length).toBe(before)
      expect((await trace(local.body.ledger_seq)).guardrail).toMatchObject({ verdict: 'not_run' })
      const logged = logLines.length
      const abstained = await bash('echo JUNK in monitor mode')
      expect(abstained.body.verdict).toBe('allow')
      const lines = logLines.slice(logged).map((l) => JSON.parse(l))
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'guardrail abstained', mode: 'monitor', gate: 'guard.bash', abstained: expect.objectContaining({ kind: 'malformed_answer' }) }),
      )
    } finally {
      await req('PATCH', '/v1/mode', { mode: 'firewall' }, true)
    }
  })

  it('PUT /v1/guardrails/enabled needs an operator, is a ledger entry, and switches providers off', async () => {
    expect((await req('PUT', '/v1/guardrails/enabled', { enabled: false })).status).toBe(401)
    expect((await req('PUT', '/v1/guardrails/enabled', { enabled: 'no' }, true)).status).toBe(400)
    const off = await req('PUT', '/v1/guardrails/enabled', { enabled: false }, true)
    expect(off.body).toMatchObject({ enabled: false, previous: true })
    expect(await leaf(off.body.ledger_seq)).toMatchObject({ type: 'control', verdict: 'config_changed', reason: expect.stringMatching(/guardrails disabled/) })
    try {
      const before = openai.requests.length
      const res = await bash('echo VIOLENT while off')
      expect(res.body.verdict).toBe('allow')
      expect(openai.requests.length).toBe(before)
      expect((await trace(res.body.ledger_seq)).guardrail).toMatchObject({ verdict: 'disabled', ran: false, enabled: false })
      expect((await req('GET', '/v1/guardrails/providers')).body.enabled).toBe(false)
    } finally {
      const on = await req('PUT', '/v1/guardrails/enabled', { enabled: true }, true)
      expect(on.body).toMatchObject({ enabled: true, previous: false })
    }
  })

  it('lists providers (configured, never the credential) and the catalog (both entry kinds)', async () => {
    const providers = (await req('GET', '/v1/guardrails/providers')).body
    expect(providers.providers.map((p: { id: string; configured: boolean; credential_env: string }) => [p.id, p.configured, p.credential_env])).toEqual([
      ['llama-guard', true, 'LLAMA_GUARD_API_KEY'],
      ['openai', true, 'OPENAI_API_KEY'],
      ['azure-content-safety', true, 'AZURE_CONTENT_SAFETY_API_KEY'],
    ])
    const catalog = (await req('GET', '/v1/guardrails/catalog')).body.models
    expect(catalog).toContainEqual(
      expect.objectContaining({
        id: 'openai/omni-moderation-latest',
        kind: 'classifier_model',
        runnable: true,
        flag_severity: expect.objectContaining({ 'sexual/minors': 'critical' }),
      }),
    )
    expect(catalog).toContainEqual(expect.objectContaining({ id: 'azure-content-safety/blocklists', kind: 'account_policy', runnable: false }))
  })

  it('tests a provider with a real call (operator): reachability, latency, mapped result', async () => {
    expect((await req('POST', '/v1/guardrails/providers/openai/test', {})).status).toBe(401)
    const before = openai.requests.length
    const ok = await req('POST', '/v1/guardrails/providers/openai/test', { text: 'a VIOLENT probe' }, true)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({
      provider: 'openai',
      model: 'openai/omni-moderation-latest',
      reachable: true,
      result: { safe: false, categories: { violence: { severity: 'high', raw: true } } },
    })
    expect(ok.body.latency_ms).toBeGreaterThanOrEqual(0)
    expect(openai.requests.length).toBe(before + 1)
    const failing = await req('POST', '/v1/guardrails/providers/llama-guard/test', { text: 'E500' }, true)
    expect(failing.body).toMatchObject({ reachable: true, abstained: { kind: 'provider_error' } })
    expect((await req('POST', '/v1/guardrails/providers/nope/test', {}, true)).status).toBe(404)
    const account = await req('POST', '/v1/guardrails/providers/openai/test', { model: 'openai/usage-policies' }, true)
    expect(account.status).toBe(422)
    expect(account.type).toMatch(/application\/problem\+json/)
  })

  it('answers /v1/llm/models with 501 and a hint, and unknown trace seqs with 404', async () => {
    const models = await req('GET', '/v1/llm/models')
    expect(models.status).toBe(501)
    expect(models.body).toMatchObject({ code: 'not_implemented', detail: expect.stringMatching(/GET \/v1\/guardrails\/catalog/) })
    expect((await req('GET', '/v1/guardrails/traces/999999')).status).toBe(404)
    expect((await req('GET', '/v1/guardrails/traces/abc')).status).toBe(400)
  })

  it('never shows a credential in any response, log line, trace or file under $SVC_HOME', async () => {
    // The keys did reach the vendors (so they were really in play)...
    expect(openai.requests.some((r) => r.headers.authorization === `Bearer ${KEYS.OPENAI_API_KEY}`)).toBe(true)
    // ...and nowhere else.
    const files: string[] = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else files.push(path)
      }
    }
    walk(d.home)
    expect(files.some((f) => f.endsWith('guardrail-traces.db'))).toBe(true)
    const haystacks = [...bodies, ...logLines, ...files.map((f) => readFileSync(f).toString('latin1'))]
    for (const key of Object.values(KEYS)) {
      for (const hay of haystacks) expect(hay.includes(key), `found ${key.slice(0, 8)}… in output`).toBe(false)
    }
  })
})
