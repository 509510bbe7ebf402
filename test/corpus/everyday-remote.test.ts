/**
 * The everyday commands of the tools the remote and semantic harm packs cover (databases, cloud CLIs,
 * Kubernetes, IaC, containers, code hosting, secret managers, backups, services, publishing, platforms),
 * from each tool's CLI reference: every one is allowed by the built-in packs (a monitor alert is allowed, and
 * recorded). Prints the false-positive rate and the share recorded as monitor alerts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { parse } from 'yaml'
import { protectedPorts } from '../../core/index.ts'
import { createCorpusWorld, type CorpusWorld } from './harness.ts'

const corpus = parse(readFileSync(new URL('everyday/remote-tools.yaml', import.meta.url), 'utf8')) as { cmd: string; source: string }[]

let world: CorpusWorld
let project: string
beforeAll(async () => {
  world = await createCorpusWorld({ svcPorts: protectedPorts({}) })
  project = join(world.home, 'work', 'app')
  mkdirSync(join(project, 'src'), { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', scripts: { test: 'vitest run' } }))
})
afterAll(async () => {
  await world?.close()
})

it('allows every everyday command of the covered tools (monitor alerts are allowed)', async () => {
  expect(corpus.length).toBeGreaterThanOrEqual(250)
  const denied: string[] = []
  let alerts = 0
  for (const c of corpus) {
    const { decision } = await world.decide({ cmd: c.cmd }, { cwd: project })
    if (decision.verdict === 'deny') denied.push(`${c.cmd} (${decision.ruleId})`)
    else if (decision.ledgerVerdict === 'monitor_alert') alerts++
  }
  console.log(
    `remote-tools everyday corpus: ${corpus.length} commands, ${denied.length} denied (${((100 * denied.length) / corpus.length).toFixed(2)} %), ${alerts} monitor alerts`,
  )
  expect(denied).toEqual([])
}, 120_000)
