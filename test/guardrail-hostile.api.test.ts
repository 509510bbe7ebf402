/**
 * A guardrail provider that misbehaves, through the real daemon and a real loopback server: one that never
 * answers, one that sends headers and then trickles, one that answers an endless body, and redirects to the same
 * origin and to another one. Each check is answered within max_latency (plus slack for a loaded machine) as an
 * abstention, the endless body is read no further than the cap, and neither the credential nor the call follows a
 * redirect anywhere.
 */
import { writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

// A loaded test machine: the bounds below are max_latency plus generous slack, not figures.
vi.setConfig({ hookTimeout: 120_000, testTimeout: 60_000 })
const SLACK_MS = 8000

const KEY = 'sk-hostile-SECRET-0a1b2c3d'
const POLICY = `version: 1
gates:
  - id: guard.bash
    match: { tool: Bash }
    evaluate:
      - kind: llm_guardrail
        model: openai/omni-moderation-latest
        prompt_field: input.command
        on_threshold: [{ category: any, severity: ">= high", action: deny }]
        max_latency: 1s
`
type Seen = { url: string; auth: string | undefined }
let d: TestDaemon
let session: string
let mode = 'hang'
let hostile: Server
let elsewhere: Server
let hostileUrl = ''
let elsewhereUrl = ''
let endlessBytes = 0
const seenHostile: Seen[] = []
const seenElsewhere: Seen[] = []

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })))
}

beforeAll(async () => {
  ;({ server: elsewhere, url: elsewhereUrl } = await listen((req, res) => {
    seenElsewhere.push({ url: req.url ?? '', auth: req.headers.authorization })
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[{"flagged":false,"categories":{},"category_scores":{}}]}')
  }))
  ;({ server: hostile, url: hostileUrl } = await listen((req, res) => {
    seenHostile.push({ url: req.url ?? '', auth: req.headers.authorization })
    req.resume()
    if (mode === 'hang') return // never answers
    if (mode === 'trickle') {
      res.writeHead(200, { 'content-type': 'application/json' })
      const t = setInterval(() => res.write(' '), 100)
      res.on('close', () => clearInterval(t))
      return
    }
    if (mode === 'endless') {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) endlessBytes += chunk.length
        if (!res.destroyed && endlessBytes < 4 * 1024 ** 3) res.once('drain', pump)
      }
      res.write('{"results":[')
      pump()
      return
    }
    if (mode === 'redirect-same') return res.writeHead(307, { location: `${hostileUrl}/v1/moderations-again` }).end()
    if (mode === 'redirect-other') return res.writeHead(307, { location: `${elsewhereUrl}/v1/moderations` }).end()
    res.writeHead(500).end()
  }))
  const home = tempDir('svc-guard-hostile-')
  writeFileSync(join(home, 'policy.yaml'), POLICY)
  d = await startTestDaemon({ home, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${hostileUrl}/v1` } })
  session = await d.session()
})

afterAll(async () => {
  await d?.stop()
  hostile?.closeAllConnections()
  elsewhere?.closeAllConnections()
  hostile?.close()
  elsewhere?.close()
})

async function checkAs(m: string, command: string): Promise<{ verdict: string; ms: number; kinds: string[]; why: string[] }> {
  mode = m
  const t0 = performance.now()
  const res = await d.request('POST', '/v1/gates/check', { session_id: session, source: 'test', tool: 'Bash', input: { command } })
  const ms = performance.now() - t0
  expect(res.status).toBe(200)
  const trace = (await d.request('GET', `/v1/guardrails/traces/${res.body.ledger_seq}`)).body
  const evaluators = trace.guardrail.evaluators as { abstain_kind: string; why: string }[]
  return { verdict: res.body.verdict, ms, kinds: evaluators.map((e) => e.abstain_kind), why: evaluators.map((e) => e.why) }
}

it('a provider that never answers: an abstention within max_latency', async () => {
  const r = await checkAs('hang', 'echo hang')
  expect(r.kinds).toEqual(['timeout'])
  expect(r.ms).toBeLessThan(1000 + SLACK_MS)
})

it('a provider that sends headers and then trickles: an abstention within max_latency', async () => {
  const r = await checkAs('trickle', 'echo trickle')
  expect(r.kinds).toEqual(['timeout'])
  expect(r.ms).toBeLessThan(1000 + SLACK_MS)
})

it('an endless answer: read no further than the cap, an abstention, the daemon still answers', async () => {
  const r = await checkAs('endless', 'echo endless')
  expect(r.kinds).toEqual(['malformed_answer'])
  expect(r.why.join(' ')).toMatch(/larger than/)
  await new Promise((res) => setTimeout(res, 300))
  expect(endlessBytes).toBeLessThan(64 * 1024 * 1024) // the server stopped being read (socket buffers aside)
  expect((await d.request('GET', '/v1/health')).status).toBe(200)
})

it('redirects to the same origin and to another: refused, nothing follows them, the key reaches no other origin', async () => {
  for (const m of ['redirect-same', 'redirect-other']) {
    const before = seenHostile.length
    const r = await checkAs(m, `echo ${m}`)
    expect(r.kinds).toEqual(['provider_error'])
    expect(r.why.join(' ')).toMatch(/redirect/)
    expect(seenHostile.slice(before).map((s) => s.url)).toEqual(['/v1/moderations'])
  }
  expect(seenElsewhere).toEqual([])
  expect(JSON.stringify(seenHostile)).toContain(KEY) // the configured origin itself gets the key
})
