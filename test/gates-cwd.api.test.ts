/**
 * `GET /v1/gates?cwd=<dir>` lists the gates a call in that directory meets: the daemon and user layers plus every
 * repository layer above the cwd (an outer repo and a nested one both apply), with their counters. Without a cwd,
 * or outside any repo, no repo gate is listed; a relative cwd is refused.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
const outer = tempDir('svc-gates-cwd-')
const inner = join(outer, 'vendor', 'lib')
const repoGate = (id: string, glob: string) => `version: 1\ngates:\n  - id: ${id}\n    when: { tool: Write, path: '${glob}' }\n`

beforeAll(async () => {
  mkdirSync(join(outer, '.git'), { recursive: true })
  mkdirSync(join(inner, '.git'), { recursive: true })
  mkdirSync(join(inner, 'src'), { recursive: true })
  writeFileSync(join(outer, '.svc.yaml'), repoGate('outer.no-migrations', '**/migrations/**'))
  writeFileSync(join(inner, '.svc.yaml'), repoGate('inner.no-generated', '**/generated/**'))
  d = await startTestDaemon({ home: tempDir() })
})
afterAll(() => d.stop())

type Row = { id: string; source: string; layer: string; matched_count: number; last_hit_at: string | null }
const gates = async (query = '') => {
  const res = await d.request('GET', `/v1/gates${query}`)
  expect(res.status).toBe(200)
  return res.body.gates as Row[]
}

it('lists every repository layer above the cwd, with its counters', async () => {
  const sid = await d.session()
  const hit = await d.request('POST', '/v1/gates/check', {
    session_id: sid,
    source: 'codex',
    tool: 'Write',
    input: { file_path: 'db/migrations/1.sql', content: 'x' },
    cwd: join(inner, 'src'),
  })
  expect(hit.body).toMatchObject({ verdict: 'deny', rule_id: 'outer.no-migrations' })

  const rows = await gates(`?cwd=${encodeURIComponent(join(inner, 'src'))}`)
  const outerRow = rows.find((g) => g.id === 'outer.no-migrations')
  expect(outerRow).toMatchObject({ layer: 'repo', source: `per-repo:${outer}`, matched_count: 1 })
  expect(outerRow!.last_hit_at).toEqual(expect.any(String))
  expect(rows.find((g) => g.id === 'inner.no-generated')).toMatchObject({ layer: 'repo', source: `per-repo:${inner}`, matched_count: 0, last_hit_at: null })
  expect(rows.some((g) => g.layer === 'daemon')).toBe(true)

  // The outer repo alone applies in its own tree; no repo applies elsewhere or without a cwd.
  expect((await gates(`?cwd=${encodeURIComponent(outer)}`)).filter((g) => g.layer === 'repo').map((g) => g.id)).toEqual(['outer.no-migrations'])
  expect((await gates(`?cwd=${encodeURIComponent(tempDir())}`)).filter((g) => g.layer === 'repo')).toEqual([])
  expect((await gates()).filter((g) => g.layer === 'repo')).toEqual([])
})

it('refuses a relative cwd', async () => {
  expect((await d.request('GET', '/v1/gates?cwd=relative/dir')).status).toBe(400)
})
