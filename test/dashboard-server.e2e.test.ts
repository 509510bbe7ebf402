/**
 * The web dashboard's HTTP surface without a browser, on a real daemon (API and dashboard on ephemeral loopback
 * ports): Host/Origin/Sec-Fetch checks, no CORS, the CSP and its import-map hash, login through the API's
 * password check (and the API's 501 for oidc), the cookie's attributes, CSRF on every change, the forwarded API
 * writing the same ledger entries, the allow-list of forwarded routes, and the event stream resuming from
 * Last-Event-ID without ever carrying the CSRF token. Also the dashboard port's choice and `$SVC_PORTS`.
 */
import { createHash } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dashboardPort } from '../cli/commands/daemon.ts'
import { gateStats } from '../daemon/read-models/gate-stats.ts'
import { spawnDaemon } from './helpers/child-daemon.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

const PASSWORD = 'correct horse battery'
let d: TestDaemon
let base: string
let port: number

/** A raw HTTP request (fetch cannot set Host). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function login(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const res = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) })
  expect(res.status).toBe(200)
  const setCookie = res.headers.get('set-cookie')!
  return { cookie: setCookie.split(';')[0]!, csrf: ((await res.json()) as { csrf: string }).csrf, setCookie }
}

beforeAll(async () => {
  d = await startTestDaemon({ dashboard: true })
  base = d.dashboardUrl!
  port = Number(new URL(base).port)
})
afterAll(async () => d?.stop())

describe('dashboard port', () => {
  it('is chosen like the API port: flag, then SVC_DASHBOARD_PORT, then 7879 beside 7878 and a free one beside any other', () => {
    expect(dashboardPort(9100, { SVC_DASHBOARD_PORT: '9200' }, 7878)).toBe(9100)
    expect(dashboardPort(undefined, { SVC_DASHBOARD_PORT: '9200' }, 7878)).toBe(9200)
    expect(dashboardPort(undefined, { SVC_DASHBOARD_PORT: '0' }, 7878)).toBe(0)
    expect(dashboardPort(undefined, {}, 7878)).toBe(7879)
    expect(dashboardPort(undefined, {}, 9000)).toBe(0)
    expect(dashboardPort(undefined, {}, 0)).toBe(0)
    expect(() => dashboardPort(undefined, { SVC_DASHBOARD_PORT: '79x' }, 7878)).toThrow('SVC_DASHBOARD_PORT=79x: must be a port number from 0 to 65535')
  })

  it('is logged at start by a real `svc daemon` (which refuses a bad --dashboard-port)', async () => {
    const child = await spawnDaemon(tempDir('svc-dash-child-'), { SVC_ALLOW_UNATTESTED: '1' })
    try {
      const url = /"dashboard":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(child.logs())![1]!
      expect((await fetch(`${url}/`)).status).toBe(200)
      expect(child.logs()).toMatch(new RegExp(`"protected_ports":\\[[0-9,]*\\b${new URL(url).port}\\b`))
    } finally {
      await child.stop()
    }
    const bad = await runCli(['daemon', '--port', '0', '--dashboard-port', '7879x', '--home', tempDir()], {})
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("option '--dashboard-port <port>' argument '7879x' is invalid. must be a port number from 0 to 65535")
  })

  it('listens on an ephemeral loopback port that joins $SVC_PORTS', () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(port).not.toBe(7879)
    expect(d.engine.svcPorts()).toContain(port)
    expect(d.engine.svcPorts()).toContain(Number(new URL(d.url).port))
  })
})

describe('browser boundary', () => {
  it('answers the page with a strict CSP whose only script hash is the inline import map, and no CORS header', async () => {
    const res = await raw('GET', '/', { host: `127.0.0.1:${port}` })
    expect(res.status).toBe(200)
    const map = /<script type="importmap">([^<]*)<\/script>/.exec(res.body)![1]!
    const hash = createHash('sha256').update(map).digest('base64')
    expect(res.headers['content-security-policy']).toBe(
      `default-src 'self'; script-src 'self' 'sha256-${hash}'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    )
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['x-frame-options']).toBe('DENY')
    expect(res.headers['referrer-policy']).toBe('no-referrer')
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    expect(res.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/)
    expect(res.body.match(/<script/g)).toHaveLength(2)
  })

  it('serves Preact and htm from node_modules under fixed names, and nothing else from disk', async () => {
    for (const file of ['/vendor/preact.mjs', '/vendor/hooks.mjs', '/vendor/htm.mjs', '/app/main.js', '/app/verify.js', '/app/style.css']) {
      expect((await raw('GET', file, { host: `localhost:${port}` })).status, file).toBe(200)
    }
    for (const path of ['/app/../index.ts', '/app/%2e%2e/server.ts', '/vendor/../../package.json', '/node_modules/preact/package.json']) {
      expect((await raw('GET', path, { host: `localhost:${port}` })).status, path).toBe(404)
    }
  })

  it('refuses a foreign Host (DNS rebinding), a foreign Origin, a cross-site fetch and a CORS preflight', async () => {
    for (const [headers, method] of [
      [{ host: `evil.example:${port}` }, 'GET'],
      [{ host: `127.0.0.1:${port + 1}` }, 'GET'],
      [{ host: `127.0.0.1:${port}`, origin: 'http://127.0.0.1:3000' }, 'POST'],
      [{ host: `127.0.0.1:${port}`, 'sec-fetch-site': 'same-site' }, 'GET'],
      [{ host: `127.0.0.1:${port}`, origin: 'http://evil.example', 'access-control-request-method': 'POST' }, 'OPTIONS'],
    ] as const) {
      const res = await raw(method, method === 'GET' ? '/session' : '/login', headers as Record<string, string>, method === 'POST' ? '{"password":"x"}' : undefined)
      expect(res.status, JSON.stringify(headers)).toBe(403)
      expect(JSON.parse(res.body).code).toBe('browser_refused')
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
  })
})

describe('login, cookie and CSRF', () => {
  it('logs in with the operator password only, setting an HttpOnly SameSite=Strict cookie named for the port', async () => {
    const wrong = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'wrong password!' }) })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('set-cookie')).toBeNull()
    const { setCookie, csrf } = await login()
    expect(setCookie).toMatch(new RegExp(`^svc_dashboard_${port}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=\\d+$`))
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('needs the login for every read and the CSRF token for every change, which then runs the API route and ledgers it', async () => {
    expect((await fetch(`${base}/api/v1/mode`)).status).toBe(401)
    expect((await fetch(`${base}/events`)).status).toBe(401)
    const { cookie, csrf } = await login()
    // The cookie alone (which the browser also sends to every other port of 127.0.0.1) reads nothing.
    expect((await fetch(`${base}/api/v1/mode`, { headers: { cookie } })).status).toBe(403)
    expect(await (await fetch(`${base}/api/v1/mode`, { headers: { cookie, 'x-csrf-token': csrf } })).json()).toEqual({ mode: 'firewall' })
    const patch = (headers: Record<string, string>) =>
      fetch(`${base}/api/v1/mode`, {
        method: 'PATCH',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ mode: 'monitor', reason: 'triage a noisy gate' }),
      })
    expect((await patch({})).status).toBe(403)
    expect((await patch({ 'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` })).status).toBe(403)
    expect(d.engine.mode()).toBe('firewall')
    const ok = await patch({ 'x-csrf-token': csrf })
    expect(ok.status).toBe(200)
    const body = (await ok.json()) as { ledger_seq: number }
    expect(d.engine.mode()).toBe('monitor')
    const leaf = (await d.request('GET', `/v1/ledger/entries?after=${body.ledger_seq - 1}&limit=1`)).body.entries[0].leaf
    expect(leaf).toMatchObject({
      type: 'control',
      verdict: 'mode_changed',
      facts: { from: 'firewall', to: 'monitor', reason: 'triage a noisy gate', who: expect.stringMatching(/^operator:[0-9a-f]{12}$/) },
    })
    await d.request('PATCH', '/v1/mode', { mode: 'firewall' }, { authorization: `Bearer ${await d.operatorToken()}` })
  })

  it('keeps the reason of a mode change from the CLI too (`svc mode --reason`)', async () => {
    const r = await runCli(['mode', 'monitor', '--reason', 'ci flake hunt'], { SVC_URL: d.url, SVC_ADMIN_PASSWORD: PASSWORD, HOME: tempDir() })
    expect(r.stdout).toBe('mode: firewall -> monitor\n')
    const last = (await d.request('GET', '/v1/ledger/entries?order=desc&limit=1')).body.entries[0].leaf
    expect(last).toMatchObject({ verdict: 'mode_changed', facts: { reason: 'ci flake hunt' }, reason: expect.stringMatching(/: ci flake hunt$/) })
    await d.request('PATCH', '/v1/mode', { mode: 'firewall' }, { authorization: `Bearer ${await d.operatorToken()}` })
  })

  it('forwards only the routes the pages use (no hooks, checks or session minting)', async () => {
    const { cookie, csrf } = await login()
    const headers = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }
    for (const path of ['/api/v1/gates/check', '/api/v1/sessions/create', '/api/v1/hooks/claude-code/PreToolUse', '/api/v1/install/apply', '/api/v1/auth/login']) {
      expect((await fetch(`${base}${path}`, { method: 'POST', headers, body: '{}' })).status, path).toBe(404)
    }
    expect((await fetch(`${base}/api/v1/ledger/root`, { headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(200)
  })

  it('ends the login on logout', async () => {
    const { cookie, csrf } = await login()
    expect((await fetch(`${base}/logout`, { method: 'POST', headers: { cookie } })).status).toBe(403)
    const out = await fetch(`${base}/logout`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } })
    expect(out.status).toBe(204)
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/)
    expect((await fetch(`${base}/session`, { headers: { cookie } })).status).toBe(401)
  })
})

describe('event stream', () => {
  /** Reads the stream until `count` entry frames arrived; answers their ids and the raw text. */
  async function readFrames(headers: Record<string, string>, count: number, path = '/events'): Promise<{ ids: number[]; text: string }> {
    const controller = new AbortController()
    const res = await fetch(`${base}${path}`, { headers, signal: controller.signal })
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    const reader = res.body!.getReader()
    let text = ''
    const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
    while (ids().length < count) text += new TextDecoder().decode((await reader.read()).value)
    controller.abort()
    return { ids: ids(), text }
  }

  it('resumes after Last-Event-ID, then streams new decisions live, never sending the CSRF token', async () => {
    const { cookie, csrf } = await login()
    const sid = await d.session()
    const check = (command: string) => d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command } })
    const a = (await check('ls')).body.ledger_seq as number
    const b = (await check('git reset --hard HEAD~1')).body.ledger_seq as number
    const resumed = readFrames({ cookie, 'x-csrf-token': csrf, 'last-event-id': String(a - 1) }, b - a + 2)
    await new Promise((r) => setTimeout(r, 100))
    const c = (await check('pwd')).body.ledger_seq as number
    const { ids, text } = await resumed
    expect(ids.slice(0, b - a + 2)).toEqual(Array.from({ length: b - a + 2 }, (_, i) => a + i))
    expect(ids).toContain(c)
    expect(text).not.toContain(csrf)
    expect(text).toContain('"rule_id":"git.reset-hard"')
    const bad = await fetch(`${base}/events`, { headers: { cookie, 'x-csrf-token': csrf, 'last-event-id': 'abc' } })
    expect(bad.status).toBe(400)
  })
})

describe('routes the dashboard added to the API', () => {
  it('counts hits per gate from the ledger over 24 h, 7 d and 30 d, split by verdict', async () => {
    const sid = await d.session()
    for (const command of ['git reset --hard', 'git reset --hard HEAD~1', 'ls'])
      await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command } })
    const stats = (await d.request('GET', '/v1/gates/stats')).body.gates as {
      rule_id: string
      hits_24h: number
      hits_7d: number
      hits_30d: number
      verdicts: Record<string, number>
    }[]
    const reset = stats.find((g) => g.rule_id === 'git.reset-hard')!
    expect(reset).toMatchObject({ hits_24h: reset.hits_30d, hits_7d: reset.hits_30d, verdicts: { deny: reset.hits_30d, allow: 0, monitor_alert: 0 } })
    expect(reset.hits_30d).toBeGreaterThanOrEqual(2)
    const day = 24 * 60 * 60 * 1000
    expect(gateStats(d.engine.ledger.store, Date.now() + 2 * day).find((g) => g.rule_id === 'git.reset-hard')).toMatchObject({
      hits_24h: 0,
      hits_7d: reset.hits_30d,
      hits_30d: reset.hits_30d,
    })
    expect(gateStats(d.engine.ledger.store, Date.now() + 8 * day).find((g) => g.rule_id === 'git.reset-hard')).toMatchObject({ hits_24h: 0, hits_7d: 0, hits_30d: reset.hits_30d })
    expect(gateStats(d.engine.ledger.store, Date.now() + 31 * day)).toEqual([])
  })

  it('explains every gate for the stored call of a decision (operator only: the reasons can quote the call)', async () => {
    const sid = await d.session()
    const seq = (await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command: 'git reset --hard' } })).body.ledger_seq
    expect((await d.request('GET', `/v1/ledger/calls/${seq}/trace`)).status).toBe(401)
    const auth = { authorization: `Bearer ${await d.operatorToken()}` }
    const r = await d.request('GET', `/v1/ledger/calls/${seq}/trace`, undefined, auth)
    expect(r.body).toMatchObject({ seq, verdict: 'deny', rule_id: 'git.reset-hard', policy_hash: d.engine.policy.hash, recorded_policy_hash: d.engine.policy.hash })
    expect(r.body.gates.find((g: { id: string }) => g.id === 'git.reset-hard')).toMatchObject({ layer: 'daemon', matched: true, on_hit: 'deny' })
    expect(r.body.gates.some((g: { matched: boolean }) => !g.matched)).toBe(true)
    expect((await d.request('GET', '/v1/ledger/calls/0/trace', undefined, auth)).status).toBe(404)
  })

  it('lists the signed checkpoints newest first', async () => {
    const none = (await d.request('GET', '/v1/ledger/checkpoints')).body.checkpoints
    expect(Array.isArray(none)).toBe(true)
    expect((await d.request('GET', '/v1/ledger/checkpoints?limit=0')).status).toBe(400)
  })
})

describe('shutdown', () => {
  it('ends open event streams instead of waiting for the pages to leave', async () => {
    const o = await startTestDaemon({ dashboard: true })
    const res = await fetch(`${o.dashboardUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) })
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!
    const { csrf } = (await res.json()) as { csrf: string }
    const stream = await fetch(`${o.dashboardUrl}/events`, { headers: { cookie, 'x-csrf-token': csrf } })
    const reader = stream.body!.getReader()
    await reader.read()
    await o.stop()
    for (let r = await reader.read(); !r.done; r = await reader.read());
  })
})

describe('other operator auth modes', () => {
  it('answers the login as the API does (501 with what is missing) in oidc mode', async () => {
    const o = await startTestDaemon({ dashboard: true, env: { SVC_AUTH_MODE: 'oidc' } })
    try {
      const viaDashboard = await fetch(`${o.dashboardUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) })
      const viaApi = await o.request('POST', '/v1/auth/login', { password: PASSWORD })
      expect(viaDashboard.status).toBe(501)
      expect(await viaDashboard.json()).toEqual(viaApi.body)
      expect(await (await fetch(`${o.dashboardUrl}/auth/mode`)).json()).toMatchObject({ mode: 'oidc', hint: expect.stringContaining('SVC_OIDC_ISSUER') })
    } finally {
      await o.stop()
    }
  })
})
