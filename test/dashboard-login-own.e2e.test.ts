/**
 * A dashboard login that is the dashboard's own, in real headless Chromium: the browser sends the login cookie
 * to every port of 127.0.0.1, so a second local web server the operator visits receives it; with that cookie
 * alone nothing may read the secret or act as the operator. Also: logout revokes the operator token the login
 * held, and live streams are capped per login and in total.
 */
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { chromium, type BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

const CHROMIUM = '/usr/bin/chromium'
const hasBrowser = existsSync(CHROMIUM)
const PASSWORD = 'correct horse battery'

let d: TestDaemon
let base: string
let other: Server
let otherUrl: string
const cookiesSeen: string[] = []
const issued: string[] = []

async function login(): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) })
  expect(res.status).toBe(200)
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await res.json()) as { csrf: string }).csrf }
}

beforeAll(async () => {
  d = await startTestDaemon({ dashboard: true, env: { HOME: tempDir() } })
  base = d.dashboardUrl!
  // Every operator token the API issues, as the test's own record (the dashboard never shows it).
  const tokens = d.app.auth.tokens
  const issue = tokens.issue.bind(tokens)
  tokens.issue = (now: number) => {
    const t = issue(now)
    issued.push(t.token)
    return t
  }
  // Another local web server, on another port of the same host: it records the cookies it is sent.
  other = createServer((req, res) => {
    cookiesSeen.push(req.headers.cookie ?? '')
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>some other local tool</p>')
  })
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r))
  otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`
})

afterAll(async () => {
  other?.close()
  await d?.stop()
})

describe.skipIf(!hasBrowser)('the login cookie reaching another port of 127.0.0.1', { timeout: 120_000 }, () => {
  let context: BrowserContext
  afterAll(async () => context?.close())

  it('gives that port nothing it can act or read with, while the page itself keeps working', async () => {
    context = await chromium.launchPersistentContext(tempDir('svc-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    const page = context.pages()[0] ?? (await context.newPage())
    await page.goto(`${base}/`)
    await page.getByLabel('Operator password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('mode').filter({ hasText: 'firewall' }).waitFor()
    // The operator visits another local page: the browser sends it the dashboard's cookie.
    await page.goto(`${otherUrl}/`)
    const stolen = cookiesSeen
      .join('; ')
      .split(/;\s*/)
      .find((c) => c.startsWith('svc_dashboard_'))
    expect(stolen, 'the browser sends the cookie to the other port (the premise)').toBeDefined()
    // With the cookie alone: no secret to be had, no read, no change.
    const session = await fetch(`${base}/session`, { headers: { cookie: stolen! } })
    expect(session.status).toBe(403)
    expect(await session.text()).not.toMatch(/"csrf"/)
    expect((await fetch(`${base}/api/v1/mode`, { headers: { cookie: stolen! } })).status).toBe(403)
    const flip = await fetch(`${base}/api/v1/mode`, {
      method: 'PATCH',
      headers: { cookie: stolen!, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'monitor', reason: 'stolen cookie' }),
    })
    expect(flip.status).toBe(403)
    expect(d.engine.mode()).toBe('firewall')
    // Nor the live stream: it reads every decision as the dashboard shows it.
    const events = await fetch(`${base}/events?after=-1`, { headers: { cookie: stolen! } })
    expect(events.status).toBe(403)
    expect(await events.text()).not.toMatch(/event: entry/)
    // The page itself, reloaded in its tab, is still logged in and can act.
    await page.goto(`${base}/#/policy`)
    await page.getByTestId('mode').filter({ hasText: 'firewall' }).waitFor()
    const status = await page.evaluate(async () => {
      const secret = sessionStorage.getItem('svc.dashboard.secret') ?? ''
      const res = await fetch('/api/v1/mode', { headers: { 'x-csrf-token': secret } })
      return res.status
    })
    expect(status).toBe(200)
    // And its Live page still streams: a decision made now arrives over the stream the page opens with its secret.
    await page.goto(`${base}/#/live`)
    await page.getByTestId('conn').filter({ hasText: 'live' }).waitFor()
    const sid = await d.session()
    await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command: 'echo streamed-with-the-secret' } })
    await page.getByText('echo streamed-with-the-secret').first().waitFor({ timeout: 15_000 })
  })
})

describe('logout and live streams', () => {
  it('revokes the operator token of the login on logout', async () => {
    const before = issued.length
    const { cookie, csrf } = await login()
    const token = issued[before]!
    expect(d.app.auth.tokens.valid(token, Date.now())).toBe(true)
    expect((await fetch(`${base}/logout`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(204)
    expect(d.app.auth.tokens.valid(token, Date.now())).toBe(false)
    expect((await d.request('PATCH', '/v1/mode', { mode: 'firewall' }, { authorization: `Bearer ${token}` })).status).toBe(401)
  })

  it('caps live streams per login and in total', async () => {
    const open: AbortController[] = []
    const stream = async ({ cookie, csrf }: { cookie: string; csrf: string }) => {
      const c = new AbortController()
      const res = await fetch(`${base}/events`, { headers: { cookie, 'x-csrf-token': csrf }, signal: c.signal })
      if (res.status === 200) open.push(c)
      else await res.text()
      return res.status
    }
    try {
      const first = await login()
      const statuses = []
      for (let i = 0; i < 5; i++) statuses.push(await stream(first))
      expect(statuses).toEqual([200, 200, 200, 200, 429])
      for (let l = 0; l < 3; l++) {
        const next = await login()
        for (let i = 0; i < 4; i++) expect(await stream(next)).toBe(200)
      }
      expect(await stream(await login())).toBe(429)
      // A stream that ends frees its place.
      open.shift()!.abort()
      await new Promise((r) => setTimeout(r, 200))
      expect(await stream(first)).toBe(200)
    } finally {
      for (const c of open) c.abort()
    }
  })
})
