/**
 * A big policy file loads off the request path: parsed in the worker thread, compiled in slices; the old
 * policy answers until the new one swaps in, and a broken big file leaves the old one in force with an
 * error naming the line (as the inline parser would).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { testEngine } from '../../testing/test-engine.ts'

const engine = await testEngine('version: 1\ngates:\n  - { id: base.a, when: { tool_is: A } }\n')
afterAll(() => engine.close())
const decide = async (tool: string) => (await engine.decide({ sessionId: 's', source: 'test', tool, input: {} })).decision
const big = (n: number, tail = '') =>
  `version: 1\ngates:\n${Array.from({ length: n }, (_, i) => `  - { id: big.g${i}, when: { tool_is: T${i} }, description: "generated gate number ${i} of a big policy" }\n`).join('')}${tail}`

describe('background policy load', () => {
  it('keeps answering with the old policy until the big one swaps in', async () => {
    const text = big(3000)
    expect(text.length).toBeGreaterThan(64 * 1024) // parsed in the worker
    const before = engine.policy.hash
    writeFileSync(join(engine.home, 'user-policy.yaml'), text)
    const loading = engine.policy.refreshInBackground()
    expect((await decide('T2999')).verdict).toBe('allow') // answered meanwhile, by the old policy
    expect(engine.policy.hash).toBe(before)
    expect(await loading).toBe(true)
    expect(engine.policy.hash).not.toBe(before)
    expect(await decide('T2999')).toMatchObject({ verdict: 'deny', ruleId: 'big.g2999' })
    expect((await decide('A')).ruleId).toBe('base.a')
  })

  it('leaves the last good version in force when a big file breaks, naming the line', async () => {
    const hash = engine.policy.hash
    writeFileSync(join(engine.home, 'user-policy.yaml'), big(3000, '  - { id: broken, when: { tool_is: [ }\n'))
    expect(await engine.policy.refreshInBackground()).toBe(false)
    expect(engine.policy.hash).toBe(hash)
    const file = engine.policy.files().find((f) => f.path.endsWith('user-policy.yaml'))!
    expect(file).toMatchObject({ status: 'error', error: { code: 'PE_POLICY_INVALID', loc: { line: expect.any(Number) } } })
    expect(file.error!.message).toMatch(/invalid YAML/)
    expect(await decide('T5')).toMatchObject({ verdict: 'deny', ruleId: 'big.g5' })
  })
})
