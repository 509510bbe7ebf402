/**
 * The warm-up after a start decides its calls with every shipped plugin and pack, and leaves no trace a real call
 * could see: no ledger leaf, no guardrail provider asked (even one whose gate matches every Bash call).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { SHIPPED_POLICIES_DIR } from '../paths.ts'
import { allPlugins } from '../plugins.ts'
import { createEngine, type Engine, type EnginePlugin } from '../../core/index.ts'
import { defineGuardrailProvider } from '../../guardrail-providers/kit/index.ts'
import { warmUp } from './warm-up.ts'

let engine: Engine | undefined
afterEach(async () => {
  await engine?.close()
  engine = undefined
})

const GUARDED = `version: 1
gates:
  - id: guard.bash
    match: { tool: Bash }
    evaluate:
      - { kind: llm_guardrail, model: p1/m, prompt_field: input.command, on_threshold: [{ category: any, severity: ">= high", action: deny }] }
`

/** A provider that never leaves the process and counts what it is asked. */
const asked: string[] = []
const provider = defineGuardrailProvider({
  id: 'p1',
  title: 'p1',
  defaultBaseUrl: 'http://127.0.0.1:9',
  needsKey: false,
  authHeaders: () => ({}),
  models: [{ model: 'm', kind: 'classifier_model', title: 'p1', categories: ['danger'] }],
  async classify(input) {
    asked.push(input.text)
    return { safe: true, categories: { danger: { severity: 'none', raw: false } }, rationale: 'clean' } as never
  },
})

describe('warmUp', () => {
  it('decides every call in the background without a ledger leaf or a guardrail round', async () => {
    let rounds = 0
    const counter: EnginePlugin = { name: 'test:count', apply: ({ hooks }) => hooks.guardrail.tap('test:count', () => void rounds++) }
    const home = mkdtempSync(join(tmpdir(), 'svc-warm-up-'))
    writeFileSync(join(home, 'policy.yaml'), GUARDED)
    engine = await createEngine({ plugins: [...allPlugins, provider, counter], home, policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
    const size = engine.ledger.size()
    const logged: string[] = []
    const failed: string[] = []
    await new Promise<void>((resolve) => {
      warmUp(engine!, {
        debug: (obj, msg) => {
          if (msg === 'warm-up call failed') failed.push(JSON.stringify(obj))
          logged.push(msg)
          if (msg === 'warm-up done') resolve()
        },
      })
    })
    expect(failed).toEqual([])
    expect(engine.ledger.size()).toBe(size)
    expect(rounds).toBe(0)
    expect(asked).toEqual([])
    // The same engine still asks the provider for a real call: the warm-up switched nothing off.
    const session = engine.sessions.create({ signer: 'unattested' }, Date.now())
    await engine.check({ sessionId: session.id, source: 'test', tool: 'Bash', input: { command: 'echo hi' } })
    expect(rounds).toBe(1)
    expect(asked).toEqual(['echo hi'])
  })

  it('stops between calls when asked (a shutdown)', async () => {
    engine = await createEngine({ plugins: allPlugins, home: mkdtempSync(join(tmpdir(), 'svc-warm-up-')), policiesDir: SHIPPED_POLICIES_DIR, log: pino({ level: 'silent' }) })
    const logged: string[] = []
    warmUp(engine, { debug: (_obj, msg) => logged.push(msg) }).stop()
    await new Promise((r) => setTimeout(r, 200))
    expect(logged).not.toContain('warm-up done')
  })
})
