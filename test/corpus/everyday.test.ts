/**
 * The everyday corpus: thousands of real commands from public sources (tldr pages, CI workflow steps,
 * package.json scripts, Makefile recipes and Dockerfile RUN lines of well-known repositories; provenance in each
 * file's header and each command's `source`), every one decided by
 * the real engine with the built-in packs, in a clean project directory, on svc's default ports. Every
 * denial must be listed in everyday/denied.yaml with its gate and why, and the ones a developer would call
 * ordinary must stay at or under 0.3 %.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { parse } from 'yaml'
import { protectedPorts } from '../../core/index.ts'
import { createCorpusWorld, type CorpusWorld } from './harness.ts'

const DIR = join(new URL('.', import.meta.url).pathname, 'everyday')
const load = (file: string): { cmd: string; source: string }[] => parse(readFileSync(join(DIR, file), 'utf8')) as { cmd: string; source: string }[]
const corpus = [...load('tldr.yaml'), ...load('ci.yaml'), ...load('repos.yaml')]
const denied = parse(readFileSync(join(DIR, 'denied.yaml'), 'utf8')) as { cmd: string; rule: string; ordinary: boolean; why: string }[]

let world: CorpusWorld
let project: string
beforeAll(async () => {
  world = await createCorpusWorld({ svcPorts: protectedPorts({}) })
  // An ordinary project: no planted links or scripts (the bypass corpus's project has those).
  project = join(world.home, 'work', 'app')
  mkdirSync(join(project, 'src'), { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', scripts: { test: 'vitest run', build: 'tsc -p .' } }))
  writeFileSync(join(project, 'README.md'), '# app\n')
})
afterAll(async () => {
  await world?.close()
})

it('has at least 5,000 everyday commands from public sources', () => {
  expect(corpus.length).toBeGreaterThanOrEqual(5000)
  expect(new Set(corpus.map((c) => c.cmd)).size).toBeGreaterThanOrEqual(5000)
})

it('denies exactly the listed everyday commands, each by its listed gate, and at most 0.3 % ordinary ones', async () => {
  const actual = new Map<string, string[]>()
  for (const c of corpus) {
    const { decision } = await world.decide({ cmd: c.cmd }, { cwd: project })
    if (decision.verdict === 'deny')
      actual.set(
        c.cmd,
        decision.hits.filter((h) => h.onHit === 'deny').map((h) => h.gateId),
      )
  }
  const unexpected = [...actual.keys()].filter((cmd) => !denied.some((d) => d.cmd === cmd)).map((cmd) => `${cmd} (${actual.get(cmd)!.join(', ')})`)
  expect(unexpected, 'denied but not listed in everyday/denied.yaml').toEqual([])
  const nowAllowed = denied.filter((d) => !actual.has(d.cmd)).map((d) => d.cmd)
  expect(nowAllowed, 'listed in everyday/denied.yaml but allowed').toEqual([])
  for (const d of denied) expect(actual.get(d.cmd), d.cmd).toContain(d.rule)
  const ordinary = denied.filter((d) => d.ordinary)
  expect(ordinary.length / corpus.length).toBeLessThanOrEqual(0.003)
  // docs/shell-analysis.md ("The everyday corpus") lists each ordinary command still denied, with why.
  const doc = readFileSync(new URL('../../docs/shell-analysis.md', import.meta.url), 'utf8')
  // A multi-line CI step is listed by its first line.
  for (const d of ordinary) expect(doc, `docs/shell-analysis.md lists ${d.cmd}`).toContain(d.cmd.split('\n')[0])
}, 120_000)
