/**
 * The bypass corpus (must deny) and the everyday corpus (must allow), every case through the real engine
 * with the built-in policy packs. A must-allow case that is denied is a false positive and fails the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCorpusWorld, loadCorpus, type CorpusCase, type CorpusWorld } from './harness.ts'

let world: CorpusWorld
beforeAll(async () => {
  world = await createCorpusWorld()
})
afterAll(async () => {
  await world?.close()
})

const label = (c: CorpusCase): string => (c.cmd ?? `${c.tool} ${JSON.stringify(c.input)}`).slice(0, 120)

describe.each(loadCorpus('deny'))('must deny: $file', ({ cases }) => {
  it.each(cases.map((c) => [label(c), c] as const))('%s', async (_, c) => {
    const { decision } = await world.decide(c)
    expect(decision.verdict, decision.reason).toBe('deny')
    if (c.rule === 'analysis') expect(decision.reason).toMatch(/could not be analysed|analysis\.parse-error/)
    else if (c.rule) expect(decision.hits.map((h) => h.gateId), decision.reason).toContain(c.rule)
  })
})

describe.each(loadCorpus('allow'))('must allow: $file', ({ cases }) => {
  it.each(cases.map((c) => [label(c), c] as const))('%s', async (_, c) => {
    const { decision } = await world.decide(c)
    expect(decision.verdict, decision.reason).toBe('allow')
    expect(decision.hits.filter((h) => h.onHit === 'deny').map((h) => h.gateId)).toEqual([])
  })
})

it('has at least 250 must-deny and 80 must-allow cases', () => {
  const count = (dir: 'deny' | 'allow') => loadCorpus(dir).reduce((n, f) => n + f.cases.length, 0)
  expect(count('deny')).toBeGreaterThanOrEqual(250)
  expect(count('allow')).toBeGreaterThanOrEqual(80)
})

it('has a must-deny fixture for every deny gate of the built-in packs', () => {
  const covered = new Set(loadCorpus('deny').flatMap((f) => f.cases.map((c) => c.rule)))
  const packs = /^(fs|git|rce|secrets|self|analysis|persist)\./
  const gates = world.engine.policy.allGates().filter((g) => g.source === 'daemon' && g.onHit === 'deny' && packs.test(g.id))
  expect(gates.length).toBeGreaterThan(20)
  expect(gates.map((g) => g.id).filter((id) => !covered.has(id))).toEqual([])
})

it('refuses unanalysable input in firewall mode and only alerts in monitor mode', async () => {
  const hostile = { cmd: '$('.repeat(400) + 'ls' + ')'.repeat(400) }
  const firewall = await world.decide(hostile)
  expect(firewall.decision).toMatchObject({ verdict: 'deny', stage: 'core' })
  expect(firewall.decision.reason).toMatch(/^command could not be analysed \(/)
  await world.engine.setMode('monitor', 'test')
  try {
    const monitor = await world.decide(hostile)
    expect(monitor.decision).toMatchObject({ verdict: 'allow', ledgerVerdict: 'monitor_alert' })
  } finally {
    await world.engine.setMode('firewall', 'test')
  }
})
