/**
 * Bad input on every hook route (every harness × every event it serves) and on POST /v1/gates/check, sent
 * to the real daemon: never a 5xx; a pre-tool event always gets a native answer (`x-svc-hook: 1`) and a
 * deny for whatever svc cannot read (lone surrogates, keys twice, broken or oversized bodies), recorded as
 * one deny leaf; a post-tool event gets a native answer or a 400 problem; and nothing else changes
 * (sessions, mode, policy, pins, install manifest, harness configs).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'
import { hookRoutes, mutants } from './helpers/hook-mutants.ts'

let d: TestDaemon
let session: string

/**
 * State no bad hook input may change (the ledger is checked leaf by leaf instead). A call svc could read
 * is decided like any other, so it may queue a first-seen MCP server; one it refuses unread may not.
 */
function state(refused: boolean) {
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null)
  return {
    policy: d.engine.policy.hash,
    mode: d.engine.mode(),
    sessions: d.engine.sessions.list().map((s) => ({ id: s.id, ended: s.endedAt ?? null })),
    current: d.engine.sessions.current()?.id,
    manifest: read(join(d.home, 'install/manifest.json')),
    ...(refused ? { pins: read(join(d.home, 'mcp-pins.json')) } : {}),
  }
}

async function post(path: string, text: string, contentType = 'application/json') {
  const res = await fetch(`${d.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body: text })
  return { status: res.status, hook: res.headers.get('x-svc-hook'), type: res.headers.get('content-type') ?? '', text: await res.text() }
}

async function leavesAfter(size: number): Promise<{ verdict: string; type: string }[]> {
  const res = await d.request('GET', `/v1/ledger/entries?after=${size - 1}`)
  return (res.body.entries as { leaf: { verdict: string; type: string } }[]).map((e) => e.leaf)
}

beforeAll(async () => {
  d = await startTestDaemon()
  session = await d.session()
})
afterAll(() => d.stop())

const routes = hookRoutes()

describe('bad input on every hook route', () => {
  it('covers every event of every harness', () => {
    const served = new Set(routes.map((r) => `${r.harness.id} ${r.event}`))
    for (const r of routes) for (const event of Object.keys(r.harness.events)) expect(served).toContain(`${r.harness.id} ${event}`)
    expect(new Set(routes.map((r) => r.harness.id))).toEqual(new Set(['copilot-cli', 'opencode', 'claude-code', 'codex', 'gemini', 'cursor']))
  })

  for (const route of routes) {
    it(`${route.harness.id} ${route.event} (${route.fixture}): no 5xx, pre-tool denies what it cannot read, nothing else changes`, async () => {
      const path = `/v1/hooks/${route.harness.id}/${route.event}`
      const allow = route.harness.render(route.event, { verdict: 'allow', ruleId: '', reason: '' }).body
      const base = d.engine.ledger.size()
      const original = await post(path, JSON.stringify(route.body))
      expect(original.status, original.text).toBe(200)
      const originalDenied = original.text !== allow && d.engine.ledger.size() > base
      // Each mutant is its own tool use: a duplicate delivery would get the first answer replayed, unexamined. The
      // call's id is the harness's own field (Claude's tool_use_id, OpenCode's callID), or derived from its session
      // (Copilot CLI sends none).
      const idField = ['tool_use_id', 'callID', 'sessionId'].find((k) => typeof route.body[k] === 'string')
      const toolUseId = idField ? JSON.stringify(route.body[idField]) : undefined
      for (const [i, m] of mutants(route.body).entries()) {
        const mustDeny = m.deny === 'always' || (m.deny === 'unless-dropped' && originalDenied)
        const before = state(mustDeny)
        const size = d.engine.ledger.size()
        const text = toolUseId ? m.text.replace(toolUseId, `${toolUseId.slice(0, -1)}-m${i}"`) : m.text
        const res = await post(path, text, m.contentType)
        const what = `${m.name}: ${res.status} ${res.text.slice(0, 300)}`
        expect(res.status, what).toBeLessThan(500)
        const added = await leavesAfter(size)
        if (route.pre) {
          expect({ status: res.status, hook: res.hook }, what).toEqual({ status: 200, hook: '1' })
          expect(added.length, what).toBeLessThanOrEqual(1)
          if (m.deny === 'unless-dropped' && !mustDeny) expect(res.text === original.text || added.map((l) => l.verdict).join() === 'deny', what).toBe(true)
          if (mustDeny) {
            expect(res.text, what).not.toBe(allow)
            expect(
              added.map((l) => l.verdict),
              what,
            ).toEqual(['deny'])
          }
        } else {
          if (res.status !== 200)
            expect({ status: res.status, type: res.type }, what).toMatchObject({
              status: expect.toSatisfy((s: number) => [400, 413, 415].includes(s)),
              type: expect.stringContaining('application/problem+json'),
            })
          if (m.deny === 'always') expect(res.status, what).not.toBe(200)
          // A post-tool event whose call svc never decided also leaves a `hook_bypassed` control leaf.
          const rows = added.filter((l) => !(l.type === 'control' && l.verdict === 'hook_bypassed'))
          expect(
            rows.every((l) => l.type === 'outcome'),
            what,
          ).toBe(true)
          expect(rows.length, what).toBeLessThanOrEqual(1)
          expect(added.length - rows.length, what).toBeLessThanOrEqual(rows.length)
        }
        expect(state(mustDeny), what).toEqual(before)
      }
    })
  }
})

describe('bad input on POST /v1/gates/check', () => {
  it('answers a deny or a 4xx problem, never a 5xx, and denies what it cannot read', async () => {
    const valid = { session_id: session, source: 'test', tool: 'Bash', input: { command: 'ls', nested: { path: '/tmp/x' } }, cwd: '/tmp', meta: { tool_use_id: 't1' } }
    for (const m of mutants(valid)) {
      const before = state(m.deny !== 'no')
      const size = d.engine.ledger.size()
      const res = await post('/v1/gates/check', m.text, m.contentType)
      const what = `${m.name}: ${res.status} ${res.text.slice(0, 300)}`
      expect(res.status, what).toBeLessThan(500)
      if (res.status === 200) {
        const verdict = (JSON.parse(res.text) as { verdict: string }).verdict
        if (m.deny !== 'no') expect(verdict, what).toBe('deny')
        expect(
          (await leavesAfter(size)).map((l) => l.verdict),
          what,
        ).toEqual([verdict])
      } else {
        expect(res.type, what).toContain('application/problem+json')
        expect(d.engine.ledger.size(), what).toBe(size)
      }
      expect(state(m.deny !== 'no'), what).toEqual(before)
    }
  })
})
