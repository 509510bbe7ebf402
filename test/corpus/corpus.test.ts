/**
 * The bypass corpus (must deny) and the everyday corpus (must allow), every case through the real engine
 * with the built-in policy packs. A must-allow case that is denied is a false positive and fails the suite.
 * Every case is also decided running every gate (no gate index): the two decisions must be the same, so the
 * index only ever skips gates that cannot match (test/gate-index.test.ts checks it over generated gates too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EvalRequest, GateTrace } from '../../core/index.ts'
import { GateIndex } from '../../core/policy/gate-index.ts'
import { createCorpusWorld, loadCorpus, type CorpusCase, type CorpusWorld } from './harness.ts'

let world: CorpusWorld
/** The same world decided by a daemon under its own account (cases marked `separated`). */
let separated: CorpusWorld
beforeAll(async () => {
  world = await createCorpusWorld()
  separated = await createCorpusWorld({ env: { SVC_DAEMON_ACCOUNT: 'svcd' } })
})
afterAll(async () => {
  await world?.close()
  await separated?.close()
})

const label = (c: CorpusCase): string => (c.cmd ?? `${c.tool} ${JSON.stringify(c.input)}`).slice(0, 120)

const DENY = loadCorpus('deny')
const ALLOW = loadCorpus('allow')

/** Gates the index skipped, per decided case (for the check that the built-in policy indexes some). */
const skippedByCase = new Map<CorpusCase, number>()

/** Decides a case with the gate index, and again running every gate; fails unless both decide alike. */
async function decide(c: CorpusCase) {
  const decider = c.separated ? separated : world
  const indexed = await decider.decide(c)
  const full: GateTrace[] = []
  const everyGate = await decider.decide(c, {}, full)
  const what = c.cmd ?? JSON.stringify(c.input)
  expect(indexed.decision.hits, `${what}: indexed hits`).toEqual(everyGate.decision.hits)
  expect([indexed.decision.verdict, indexed.decision.ruleId], `${what}: indexed verdict`).toEqual([everyGate.decision.verdict, everyGate.decision.ruleId])
  // An analysis refusal (no gate runs) names which of its time or size budgets ran out, which can differ between two runs.
  if (!everyGate.request.shell?.error) expect(indexed.decision.reason, `${what}: indexed reason`).toBe(everyGate.decision.reason)
  expect(
    full.filter((t) => t.matched !== undefined).map((t) => t.gate.id),
    `${what}: traced gates`,
  ).toEqual(everyGate.decision.hits.map((h) => h.gateId))
  skippedByCase.set(c, full.length - candidateCount(indexed.request))
  return indexed
}

function candidateCount(request: EvalRequest): number {
  return world.engine.policy.gatesFor(request, world.engine.evalContext()).reduce((n, l) => n + new GateIndex(l.gates).candidates(request).length, 0)
}

describe.each(DENY)('must deny: $file', ({ cases }) => {
  it.each(cases.map((c) => [label(c), c] as const))('%s', async (_, c) => {
    const { decision } = await decide(c)
    expect(decision.verdict, decision.reason).toBe('deny')
    if (c.rule === 'analysis') expect(decision.reason).toMatch(/could not be analysed|analysis\.parse-error/)
    else if (c.rule)
      expect(
        decision.hits.map((h) => h.gateId),
        decision.reason,
      ).toContain(c.rule)
  })
})

describe.each(ALLOW)('must allow: $file', ({ cases }) => {
  it.each(cases.map((c) => [label(c), c] as const))('%s', async (_, c) => {
    const { decision } = await decide(c)
    expect(decision.verdict, decision.reason).toBe('allow')
    expect(decision.hits.filter((h) => h.onHit === 'deny').map((h) => h.gateId)).toEqual([])
  })
})

it('has at least 250 must-deny and 80 must-allow cases', () => {
  const count = (files: typeof DENY) => files.reduce((n, f) => n + f.cases.length, 0)
  expect(count(DENY)).toBeGreaterThanOrEqual(250)
  expect(count(ALLOW)).toBeGreaterThanOrEqual(80)
})

it('skips some gates of the built-in policy through its index', async () => {
  const cases = [...DENY, ...ALLOW].flatMap((f) => f.cases)
  let skipped = 0
  // Each case test recorded what the index skipped; a case filtered out of this run is decided here.
  for (const c of cases) {
    if (!skippedByCase.has(c)) await decide(c)
    skipped += skippedByCase.get(c)!
  }
  expect(skipped, 'the built-in policy indexes some gates').toBeGreaterThan(0)
})

it('has a must-deny fixture for every deny gate of the built-in packs', () => {
  const covered = new Set(DENY.flatMap((f) => f.cases.map((c) => c.rule)))
  const packs = /^(fs|git|rce|secrets|self|analysis|persist)\./
  const gates = world.engine.policy.allGates().filter((g) => g.source === 'daemon' && g.onHit === 'deny' && packs.test(g.id))
  expect(gates.length).toBeGreaterThan(20)
  expect(gates.map((g) => g.id).filter((id) => !covered.has(id))).toEqual([])
})

it('refuses unanalysable input in firewall mode and only alerts in monitor mode', async () => {
  const hostile = { cmd: `${'$('.repeat(400)}ls${')'.repeat(400)}` }
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
