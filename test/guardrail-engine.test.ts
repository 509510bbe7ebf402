/**
 * The guardrail seam inside the engine: evaluation order (a local deny never reaches a provider), zero
 * cost without evaluators, failures as abstentions (never an implicit deny), the hook stopping only on
 * a deny, and policy load errors at the YAML line:col of the bad value.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { allPlugins } from '../cli/plugins.ts'
import { createEngine, EngineError, type EnginePlugin, type Engine } from '../core/index.ts'
import { createProviderRuntime, defineGuardrailProvider } from '../guardrail-providers/kit/index.ts'
import azurePlugin from '../guardrail-providers/azure-content-safety/index.ts'
import llamaPlugin from '../guardrail-providers/llama-guard/index.ts'
import openaiPlugin from '../guardrail-providers/openai-moderation/index.ts'
import { tempDir } from './helpers/temp.ts'

const log = pino({ level: 'silent' })
let engine: Engine | undefined
afterEach(async () => {
  await engine?.close()
  engine = undefined
})

/** A provider whose classify is scripted per test, counting its calls. */
function scripted(id: string, classify: (text: string) => Promise<unknown> | unknown) {
  const calls: string[] = []
  const plugin = defineGuardrailProvider({
    id,
    title: id,
    defaultBaseUrl: 'http://127.0.0.1:9',
    needsKey: false,
    authHeaders: () => ({}),
    models: [{ model: 'm', kind: 'classifier_model', title: id, categories: ['danger'] }],
    async classify(input) {
      calls.push(input.text)
      return (await classify(input.text)) as never
    },
  })
  return { plugin, calls }
}

const gate = (models: string[], extra = '') => `version: 1
gates:
  - id: guard.bash
    match: { tool: Bash }
    evaluate:
${models.map((m) => `      - { kind: llm_guardrail, model: ${m}, prompt_field: input.command, on_threshold: [{ category: any, severity: ">= high", action: deny }]${extra} }`).join('\n')}
`

async function build(plugins: EnginePlugin[], policy?: string): Promise<Engine> {
  const home = tempDir()
  if (policy) writeFileSync(join(home, 'policy.yaml'), policy)
  engine = await createEngine({ plugins: [...allPlugins, ...plugins], home, policiesDir: SHIPPED_POLICIES_DIR, log })
  return engine
}
const call = (sessionId: string, command: string) => ({ sessionId, source: 'test', tool: 'Bash', input: { command } })
const flagged = { safe: false, categories: { danger: { severity: 'high', raw: true } }, rationale: 'danger' }
const clean = { safe: true, categories: { danger: { severity: 'none', raw: false } }, rationale: 'clean' }

describe('guardrail seam', () => {
  it('asks providers only after a local allow: a local deny never reaches one', async () => {
    const p = scripted('p1', () => flagged)
    const e = await build([p.plugin], gate(['p1/m']))
    const s = e.sessions.create({ signer: 'unattested' }, Date.now())
    const denied = await e.check(call(s.id, 'rm -rf /'))
    expect(denied.verdict).toBe('deny')
    expect(denied.decision.stage).toBe('local')
    expect(denied.decision.guardrail).toBeUndefined()
    expect(p.calls).toEqual([])
    const asked = await e.check(call(s.id, 'echo hi'))
    expect(p.calls).toEqual(['echo hi'])
    expect(asked).toMatchObject({ verdict: 'deny', rule_id: '' })
    expect(asked.decision.guardrail?.local.verdict).toBe('allow')
  })

  it('never calls the guardrail hook when no evaluator matched (zero cost)', async () => {
    let taps = 0
    const counter: EnginePlugin = { name: 'test:count', apply: ({ hooks }) => hooks.guardrail.tap('test:count', () => void taps++) }
    const e = await build([counter])
    const s = e.sessions.create({ signer: 'unattested' }, Date.now())
    const res = await e.check(call(s.id, 'echo hi'))
    expect(res.verdict).toBe('allow')
    expect(res.decision.guardrail).toBeUndefined()
    expect(taps).toBe(0)
  })

  it('turns a throwing adapter and a throwing raw tap into abstentions, never a deny', async () => {
    const p = scripted('p1', () => {
      throw new Error('adapter exploded')
    })
    const raw: EnginePlugin = {
      name: 'test:raw',
      apply: ({ hooks }) =>
        hooks.guardrail.tap({ name: 'test:raw', stage: 1000 }, () => {
          throw new Error('raw tap exploded')
        }),
    }
    const e = await build([p.plugin, raw], gate(['p1/m', 'p1/m']))
    const s = e.sessions.create({ signer: 'unattested' }, Date.now())
    const res = await e.check(call(s.id, 'echo hi'))
    expect(res.verdict).toBe('allow')
    const verdicts = res.decision.guardrail!.evaluators
    expect(verdicts.map((v) => [v.effect, v.abstained?.kind])).toEqual([
      ['abstain', 'provider_error'],
      ['abstain', 'provider_error'],
    ])
    expect(verdicts[0]!.reason).toMatch(/adapter exploded/)
    expect(res.decision.guardrail!.verdict).toBe('abstain')
  })

  it('stops at the first deny: later evaluators are skipped, not asked', async () => {
    const first = scripted('p1', () => flagged)
    const second = scripted('p2', () => clean)
    const e = await build([first.plugin, second.plugin], gate(['p1/m', 'p2/m']))
    const s = e.sessions.create({ signer: 'unattested' }, Date.now())
    const res = await e.check(call(s.id, 'echo hi'))
    expect(res.verdict).toBe('deny')
    expect(second.calls).toEqual([])
    expect(res.decision.guardrail!.evaluators.map((v) => v.effect)).toEqual(['deny', 'skipped'])
  })

  it('an abstention does not stop the hook: a later provider still denies', async () => {
    const first = scripted('p1', () => ({ nonsense: true }))
    const second = scripted('p2', () => flagged)
    const e = await build([first.plugin, second.plugin], gate(['p1/m', 'p2/m']))
    const s = e.sessions.create({ signer: 'unattested' }, Date.now())
    const res = await e.check(call(s.id, 'echo hi'))
    expect(res.verdict).toBe('deny')
    expect(res.decision.guardrail!.evaluators.map((v) => [v.effect, v.abstained?.kind])).toEqual([
      ['abstain', 'malformed_answer'],
      ['deny', undefined],
    ])
  })

  it('ignores a tap that returns a non-deny (only a deny stops the round)', async () => {
    const p = scripted('p1', () => clean)
    const e = await build([p.plugin], gate(['p1/m']))
    const s = e.sessions.create({ signer: 'unattested' }, Date.now())
    const res = await e.check(call(s.id, 'echo hi'))
    expect(res.decision.guardrail).toMatchObject({ verdict: 'allow', local: { verdict: 'allow' } })
    expect(res.decision.stage).toBe('local')
  })
})

describe('provider configuration', () => {
  it('reads base URLs with defaults, needs a key only where the vendor does, and names what is missing', async () => {
    const openai = createProviderRuntime(openaiPlugin.provider, { OPENAI_API_KEY: 'k' })
    expect(openai).toMatchObject({ configured: true, baseUrl: 'https://api.openai.com/v1', credentialEnv: 'OPENAI_API_KEY' })
    expect(createProviderRuntime(openaiPlugin.provider, {}).configured).toBe(false)
    expect(createProviderRuntime(llamaPlugin.provider, {})).toMatchObject({ configured: true, baseUrl: 'http://127.0.0.1:11434/v1' })
    const azure = createProviderRuntime(azurePlugin.provider, { AZURE_CONTENT_SAFETY_API_KEY: 'k' })
    expect(azure.configured).toBe(false)
    const result = await azure.test(azure.models[0]!, 'x', 1000)
    expect(result).toMatchObject({ reachable: false, abstained: { kind: 'not_configured', detail: expect.stringMatching(/set AZURE_CONTENT_SAFETY_BASE_URL/) } })
    const shown = createProviderRuntime(openaiPlugin.provider, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'https://user:pw@proxy.example/v1?token=t' })
    expect(shown.baseUrl).toBe('https://proxy.example/v1')
  })
})

describe('llm_guardrail parsing', () => {
  const load = (policy: string) =>
    build([], policy).then(
      () => undefined,
      (err: unknown) => err as EngineError,
    )

  it.each([
    ['an unknown model', 'model: openai/nope', 6, 39, /unknown model "openai\/nope" \(known: .*openai\/omni-moderation-latest/],
    ['a bad comparison', 'severity: "~ high"', 6, 141, /invalid severity comparison "~ high"/],
    ['an unknown severity', 'severity: ">= severe"', 6, 141, /use >=, > or = followed by one of none, low, medium, high, critical/],
    ['a category the model lacks', 'category: cooking', 6, 126, /"cooking" is not a category of openai\/omni-moderation-latest/],
    ['a bad duration', 'max_latency: 2 seconds', 6, 182, /invalid duration "2 seconds"/],
  ])('rejects %s at its line:col', async (_name, change, line, col, message) => {
    const base = `version: 1
gates:
  - id: guard.bash
    match: { tool: Bash }
    evaluate:
      - { kind: llm_guardrail, model: openai/omni-moderation-latest, prompt_field: input.command, on_threshold: [{ category: any, severity: ">= high", action: deny }], max_latency: 250ms }
`
    const [key] = change.split(':')
    const policy = base.replace(new RegExp(`${key}: [^,}\\]]+`), change)
    const err = await load(policy)
    expect(err).toBeInstanceOf(EngineError)
    expect(err!.message).toMatch(message)
    expect(err!.loc).toMatchObject({ line, col })
  })

  it('refuses evaluate on a gate that uses `when`, and on_hit on a guardrail gate', async () => {
    const when = await load(gate(['openai/omni-moderation-latest']).replace('match:', 'when:'))
    expect(when!.message).toMatch(/selects its calls with `match`/)
    expect(when!.loc).toMatchObject({ line: 4, col: 11 })
    for (const [key, value] of [
      ['on_hit', 'deny'],
      ['require_strong', 'true'],
      ['nudge', 'hi'],
    ]) {
      const err = await load(gate(['openai/omni-moderation-latest']).replace('    match:', `    ${key}: ${value}\n    match:`))
      expect(err!.message).toMatch(new RegExp(`\`${key}\` has no meaning on a guardrail gate`))
      expect(err!.loc).toMatchObject({ line: 4 })
    }
  })

  it('parses compound durations and a prompt field path; refuses a prompt field outside input', async () => {
    const ok = await load(gate(['openai/omni-moderation-latest'], ', cache_ttl: 1m30s, max_latency: 1s250ms'))
    expect(ok).toBeUndefined()
    const bad = await load(gate(['openai/omni-moderation-latest']).replace('input.command', 'session.id'))
    expect(bad!.message).toMatch(/prompt_field must match pattern/)
    const slow = await load(gate(['openai/omni-moderation-latest'], ', max_latency: 31s'))
    expect(slow!.message).toMatch(/max_latency: must be above 0 and at most 30s/)
  })
})
