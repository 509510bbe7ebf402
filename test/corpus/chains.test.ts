/**
 * Multi-call chains through the real engine with the built-in packs: every call of a chain is decided in
 * order, in its own project directory, with what the allowed calls before it wrote on disk (see chains.ts).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadChains, materialise, toolWrites } from './chains.ts'
import { createCorpusWorld, type CorpusWorld } from './harness.ts'

let world: CorpusWorld
beforeAll(async () => {
  world = await createCorpusWorld()
})
afterAll(async () => {
  await world?.close()
})

let n = 0
describe.each(loadChains())('chains: $file', ({ chains }) => {
  it.each(chains.map((c) => [c.name, c] as const))('%s', async (_, chain) => {
    const cwd = join(world.home, 'chains', String(++n))
    mkdirSync(cwd, { recursive: true })
    materialise(chain.files ?? {}, cwd, world.home)
    for (const [i, call] of chain.calls.entries()) {
      const { decision } = await world.decide(call, { cwd, sessionId: `chain-${n}` })
      expect(decision.verdict, `call ${i + 1} (${call.cmd ?? call.tool}): ${decision.reason}`).toBe(call.expect)
      if (call.expect === 'deny' && call.rule)
        expect(
          decision.hits.map((h) => h.gateId),
          decision.reason,
        ).toContain(call.rule)
      if (decision.verdict === 'allow') materialise({ ...toolWrites(call, cwd, world.home), ...(call.writes ?? {}) }, cwd, world.home)
    }
  })
})

it('has chains for every plant-then-trigger kind', () => {
  const names = loadChains()
    .flatMap((f) => f.chains.map((c) => c.name))
    .join('\n')
  for (const kind of [
    'Makefile',
    'package.json',
    'git hook',
    'git config',
    '.npmrc',
    'ssh config',
    'rc file',
    'node_modules/.bin',
    'usercustomize',
    'conftest',
    'download',
    'terminal',
  ])
    expect(names).toContain(kind)
})
