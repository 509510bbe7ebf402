/**
 * Browsers cannot drive the daemon: a page that rebinds its DNS name to 127.0.0.1 sends its own name in
 * `Host`, and a cross-origin page sends `Origin` / `Sec-Fetch-Site`. Through the real server, on every
 * kind of route (hooks included), with raw HTTP so the headers are exactly what a browser would send.
 */
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'

let daemon: TestDaemon
let port: number

beforeAll(async () => {
  daemon = await startTestDaemon({ env: { SVC_ALLOWED_HOSTS: 'svc.internal:9000' } })
  port = Number(new URL(daemon.url).port)
})
afterAll(() => daemon.stop())

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
}

function raw(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body)
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...(data ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }))
    })
    req.on('error', reject)
    req.end(data)
  })
}

const routes: [string, string, unknown?][] = [
  ['GET', '/v1/health'],
  ['GET', '/v1/ledger/entries'],
  ['GET', '/v1/sessions'],
  ['POST', '/v1/sessions/create', { signer: 'unattested' }],
  ['POST', '/v1/gates/check', { session_id: 'ses_x', source: 'claude-code', tool: 'Bash', input: { command: 'ls' } }],
  ['POST', '/v1/hooks/claude-code/PreToolUse', { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'Bash', tool_input: { command: 'ls' } }],
  ['PATCH', '/v1/mode', { mode: 'monitor' }],
  ['GET', '/v1/mcp/pins'],
]

describe('browser guard', () => {
  it('refuses DNS-rebinding Host headers on every route, before anything happens', async () => {
    const before = (await daemon.request('GET', '/v1/ledger/root')).body
    for (const [method, path, body] of routes) {
      for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost:${port + 1}`, 'localhost', `attacker.localhost:${port}`]) {
        const res = await raw(method, path, { host }, body)
        expect(res.status, `${method} ${path} Host ${host}`).toBe(403)
        expect(res.body).toMatchObject({ code: 'browser_refused' })
        expect(res.headers['access-control-allow-origin']).toBeUndefined()
      }
    }
    expect((await daemon.request('GET', '/v1/ledger/root')).body).toEqual(before)
  })

  it('accepts its own loopback names with its own port, and SVC_ALLOWED_HOSTS entries', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, 'svc.internal:9000']) {
      expect((await raw('GET', '/v1/health', { host })).status, host).toBe(200)
    }
  })

  it('refuses cross-origin browser requests (Origin, Sec-Fetch-Site) even with a good Host', async () => {
    const host = `127.0.0.1:${port}`
    for (const [method, path, body] of routes) {
      for (const headers of [
        { origin: 'http://evil.example' } as Record<string, string>,
        { origin: 'null' },
        { origin: `http://localhost:${port}` },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
      ]) {
        const res = await raw(method, path, { host, ...headers }, body)
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403)
        expect(res.body.code).toBe('browser_refused')
      }
    }
    // The daemon's own origin (a dashboard it serves) and a direct navigation pass.
    expect((await raw('GET', '/v1/health', { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200)
    expect((await raw('GET', '/v1/health', { host, 'sec-fetch-site': 'none' })).status).toBe(200)
  })

  it('answers CORS preflights with a refusal and never sends CORS headers', async () => {
    const host = `127.0.0.1:${port}`
    for (const [, path] of routes) {
      const res = await raw('OPTIONS', path, { host, origin: `http://${host}`, 'access-control-request-method': 'POST' })
      expect(res.status).toBe(403)
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
    const ok = await raw('GET', '/v1/health', { host, origin: `http://${host}` })
    expect(Object.keys(ok.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
  })
})
