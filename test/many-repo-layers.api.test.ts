/**
 * Many repository layers: 200 nested directories of one tree, each with its own `.svc.yaml`. A call in the
 * deepest one meets all of them (deny-overrides: the outermost repo's deny still applies), answers in bounded
 * time, and `GET /v1/gates?cwd=` lists them; a broken file among them leaves the others in force.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

vi.setConfig({ hookTimeout: 120_000, testTimeout: 120_000 })
const DEPTH = 200
let d: TestDaemon
const top = tempDir('svc-many-repos-')
let deepest = top

beforeAll(async () => {
  for (let i = 0; i < DEPTH; i++) {
    if (i > 0) deepest = join(deepest, `r${i}`)
    mkdirSync(deepest, { recursive: true })
    const body = i === 137 ? 'version: 1\ngates: [ this is not a gate' : `version: 1\ngates:\n  - id: repo${i}.no-${i}\n    when: { tool: Bash, command_regex: '^deploy-${i}$' }\n`
    writeFileSync(join(deepest, '.svc.yaml'), body)
  }
  d = await startTestDaemon({ home: tempDir() })
})
afterAll(() => d.stop())

it('a call under 200 nested repo layers meets every layer in bounded time; the views list them', async () => {
  const sid = await d.session()
  const check = (command: string) => d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command }, cwd: deepest })
  const t0 = performance.now()
  const outer = await check('deploy-0')
  const first = performance.now() - t0
  expect(outer.body).toMatchObject({ verdict: 'deny', rule_id: 'repo0.no-0' })
  expect((await check('deploy-199')).body).toMatchObject({ verdict: 'deny', rule_id: 'repo199.no-199' })
  const t1 = performance.now()
  for (let i = 0; i < 20; i++) expect((await check(`echo ${i}`)).body.verdict).toBe('allow')
  const warm = (performance.now() - t1) / 20
  // Bounds for a loaded machine, not figures: the first call loads 200 files, later ones reuse them.
  expect(first).toBeLessThan(15_000)
  expect(warm).toBeLessThan(1_000)
  const gates = (await d.request('GET', `/v1/gates?cwd=${encodeURIComponent(deepest)}`)).body.gates as { id: string; layer: string }[]
  expect(gates.filter((g) => g.layer === 'repo')).toHaveLength(DEPTH - 1) // the broken file's layer has no gates in force
  const view = (await d.request('GET', `/v1/policy/view?cwd=${encodeURIComponent(deepest)}`)).body
  expect(view.status).toBe('ok')
  expect((await d.request('GET', '/v1/health')).status).toBe(200)
  console.log(`200 nested repo layers: first call ${first.toFixed(0)} ms, then ${warm.toFixed(1)} ms per call`)
})
