/**
 * The web dashboard in real headless Chromium (Debian's package, driven by playwright-core), against a real
 * daemon on ephemeral loopback ports: login, a live decision made through the check API arriving over SSE,
 * filters kept in the URL, proofs verified in the page (and tampered ones failing at the right step), the
 * false-positive flow end to end, a pin accept, hostile agent text rendered inert, no CSP violation and no
 * request leaving 127.0.0.1. One browser for the whole file; a screenshot of every page in test-results/dashboard/.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

const CHROMIUM = '/usr/bin/chromium'
const hasBrowser = existsSync(CHROMIUM)
if (!hasBrowser) console.warn(`dashboard browser tests skipped: no browser at ${CHROMIUM} (Debian: apt-get install chromium; .ci/run does)`)

const SHOTS = join(PROJECT_ROOT, 'test-results', 'dashboard')
const PASSWORD = 'correct horse battery'
const HOSTILE_TOOL = '<img src=x onerror="window.__pwned=1">\u202Egnp.exe'
const HOSTILE_COMMAND = '</script><script>window.__pwned=2</script><b onmouseover=alert(1)>x</b>'

let d: TestDaemon
let base: string
let sid: string
let context: BrowserContext
let page: Page
const outside: string[] = []
const consoleErrors: string[] = []

const check = (command: string, tool = 'Bash') =>
  d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool, input: { command } }).then((r) => r.body as { verdict: string; ledger_seq: number })
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

async function flipFirstHash(list: string[]): Promise<string[]> {
  const bytes = Buffer.from(list[0]!, 'base64')
  bytes[0] = bytes[0]! ^ 1
  return [bytes.toString('base64'), ...list.slice(1)]
}

describe.skipIf(!hasBrowser)('web dashboard in headless Chromium', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    d = await startTestDaemon({ dashboard: true, env: { SVC_ALLOW_SOFTWARE_SIGNER: '1', HOME: tempDir() } })
    base = d.dashboardUrl!
    const created = await d.request('POST', '/v1/sessions/create', mintSession(unlockHostKey('software', { home: d.home, env: { SVC_ALLOW_SOFTWARE_SIGNER: '1' } })))
    expect(created.status).toBe(201)
    sid = created.body.session_id
    context = await chromium.launchPersistentContext(tempDir('svc-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    await context.route('**/*', (route) => {
      const url = route.request().url()
      if (url.startsWith(`${base}/`) || url.startsWith('blob:') || url.startsWith('data:')) return route.fallback()
      outside.push(url)
      return route.abort()
    })
    // Runs before any page script (outside the page's CSP): every violation the page causes is recorded.
    await context.addInitScript("document.addEventListener('securitypolicyviolation', (e) => (window.__csp ??= []).push(e.violatedDirective + ' ' + e.blockedURI))")
    page = context.pages()[0] ?? (await context.newPage())
    page.on('console', (m) => {
      // A 401/404 the page handles (a wrong password, a decision without guardrail trace) is logged by Chromium as a
      // failed resource load; everything else of type error (CSP refusals included) counts.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of')) consoleErrors.push(m.text())
    })
    page.on('pageerror', (e) => consoleErrors.push(String(e)))
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    await d?.stop()
  })

  it('logs in with the operator password into an HttpOnly, SameSite=Strict session', async () => {
    await page.goto(`${base}/`)
    await page.getByLabel('Operator password').fill('not the password')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('alert').filter({ hasText: 'wrong password' }).waitFor()
    await shot('login')
    await page.getByLabel('Operator password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('mode').filter({ hasText: 'firewall' }).waitFor()
    const [cookie] = await context.cookies(base)
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' })
    expect(await page.evaluate('document.cookie')).toBe('')
  })

  it('shows a decision made through the check API live, and keeps showing them after pause/resume', async () => {
    await page.getByTestId('conn').filter({ hasText: 'live' }).waitFor()
    const denied = await check('git reset --hard HEAD~1')
    expect(denied.verdict).toBe('deny')
    await page.locator(`[data-seq="${denied.ledger_seq}"]`).waitFor()
    expect(await page.locator(`[data-seq="${denied.ledger_seq}"] .rule`).textContent()).toBe('git.reset-hard')
    await page.getByTestId('pause').click()
    const held = await check('ls')
    await page.getByTestId('pause').filter({ hasText: 'Resume (1 held)' }).waitFor()
    expect(await page.locator(`[data-seq="${held.ledger_seq}"]`).count()).toBe(0)
    await page.getByTestId('pause').click()
    await page.locator(`[data-seq="${held.ledger_seq}"]`).waitFor()
    await shot('live')
  })

  it('keeps the filters in the URL: a deep link filters, and live entries are filtered too', async () => {
    await page.goto(`${base}/#/live?verdict=deny&tool=Bash`)
    await page.getByTestId('conn').filter({ hasText: 'live' }).waitFor()
    expect(await page.locator('input[name="verdict"]').inputValue()).toBe('deny')
    expect(await page.locator('input[name="tool"]').inputValue()).toBe('Bash')
    const allowed = await check('pwd')
    const denied = await check('git reset --hard HEAD~2')
    await page.locator(`[data-seq="${denied.ledger_seq}"]`).waitFor()
    expect(await page.locator(`[data-seq="${allowed.ledger_seq}"]`).count()).toBe(0)
    expect(new Set(await page.locator('.row .verdict').allTextContents())).toEqual(new Set(['deny']))
    await page.locator('input[name="q"]').fill('reset')
    await page.locator('input[name="q"]').press('Enter')
    await expect.poll(() => page.url(), { timeout: 15_000 }).toContain('q=reset')
  })

  it('renders hostile agent text as inert text on the Live and Decision pages', async () => {
    const hostile = await check(HOSTILE_COMMAND, HOSTILE_TOOL)
    await page.goto(`${base}/#/live`)
    const row = page.locator(`[data-seq="${hostile.ledger_seq}"]`)
    await row.waitFor()
    expect(await row.locator('.tool').textContent()).toBe(HOSTILE_TOOL)
    await page.goto(`${base}/#/decision/${hostile.ledger_seq}`)
    await page.getByTestId('call').waitFor()
    expect(await page.getByTestId('call').textContent()).toContain('</script><script>window.__pwned=2</script>')
    expect(await page.locator('main img, main script, main b').count()).toBe(0)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    await shot('hostile')
  })

  it('verifies a decision in the browser: leaf hash, audit path, signed checkpoint, leaf signature', async () => {
    const denied = await check('git reset --hard HEAD~3')
    await check('ls -la')
    await page.goto(`${base}/#/decision/${denied.ledger_seq}`)
    await page.getByTestId('gate-trace').waitFor()
    expect(await page.getByTestId('gates-policy').textContent()).toBe('Same policy as when it was decided: deny by git.reset-hard.')
    const matched = await page.locator('[data-testid="gate-trace"] tr', { hasText: 'MATCHED' }).allTextContents()
    expect(matched.some((row) => row.includes('git.reset-hard'))).toBe(true)
    expect(await page.locator('[data-testid="gate-trace"] tbody tr').count()).toBeGreaterThan(matched.length)
    await page.getByTestId('verify').click()
    await page.getByTestId('steps-result').filter({ hasText: 'verified: every step passed' }).waitFor()
    const steps = page.locator('[data-testid="steps"] li')
    expect(await steps.count()).toBe(6)
    expect(await steps.evaluateAll((li: { getAttribute(name: string): string | null }[]) => li.map((l) => l.getAttribute('data-ok')))).toEqual(Array(6).fill('true'))
    await shot('decision')
  })

  it('fails a tampered proof at the step that breaks', async () => {
    const seq = (await check('git reset --hard HEAD~4')).ledger_seq
    await check('whoami')
    await page.goto(`${base}/#/decision/${seq}`)
    await page.getByTestId('verify').waitFor()
    const tamper = async (pattern: string, change: (json: Record<string, any>) => Promise<void>, failing: string) => {
      await page.route(pattern, async (route) => {
        const res = await route.fetch()
        const json = await res.json()
        await change(json)
        await route.fulfill({ response: res, json })
      })
      await page.getByTestId('verify').click()
      await page
        .getByTestId('steps-result')
        .filter({ hasText: `FAILED at: ${failing}` })
        .waitFor()
      await page.unroute(pattern)
    }
    await tamper('**/api/v1/ledger/proof/**', async (j) => void (j.proof = await flipFirstHash(j.proof)), 'audit path')
    expect(await page.locator('[data-testid="steps"] li').first().getAttribute('data-ok')).toBe('true')
    await shot('decision-tampered')
    await tamper(
      '**/api/v1/ledger/proof/**',
      async (j) => void (j.leaf = Buffer.from(Buffer.from(j.leaf, 'base64').toString().replace('git.reset-hard', 'git.reset-soft')).toString('base64')),
      'leaf hash',
    )
    await tamper(
      '**/api/v1/ledger/root',
      async (j) =>
        void (j.checkpoint = j.checkpoint
          .replace(/\n(\d+)\n/, (_m: string, n: string) => `\n${Number(n)}\n`)
          .replace(/ (\S{4})(\S+)\n$/, (_m: string, a: string, b: string) => ` ${a}${b.startsWith('A') ? 'B' : 'A'}${b.slice(1)}\n`)),
      'checkpoint Ed25519 signature (WebCrypto)',
    )
    await page.getByTestId('verify').click()
    await page.getByTestId('steps-result').filter({ hasText: 'verified' }).waitFor()
  })

  it('runs the false-positive flow end to end through the rule-lifecycle endpoints', async () => {
    const earlier = await check('git reset --hard HEAD~5')
    const unrelated = await check('git reset --hard HEAD~6')
    const denied = await check('git reset --hard HEAD~5')
    await page.goto(`${base}/#/decision/${denied.ledger_seq}`)
    await page.locator(`a[href="#/fp/${denied.ledger_seq}"]`).click()
    await page.getByTestId('draft').waitFor()
    await expect.poll(() => page.getByTestId('draft').inputValue(), { timeout: 15_000 }).toContain(`id: git.reset-hard.fp-${denied.ledger_seq}\n`)
    await page.getByTestId('validate').click()
    await page.getByTestId('validation').filter({ hasText: 'valid:' }).waitFor()
    expect(await page.getByTestId('diff').textContent()).toContain(`+  - id: git.reset-hard.fp-${denied.ledger_seq}`)
    await page.getByTestId('replay').click()
    await page.getByTestId('replay-allowed').waitFor()
    const replayed = await Promise.all((await page.locator('[data-testid="replay-allowed"] li').all()).map(async (li) => Number(await li.getAttribute('data-seq'))))
    expect(replayed).toEqual([denied.ledger_seq, earlier.ledger_seq])
    expect(replayed).not.toContain(unrelated.ledger_seq)
    expect(await page.getByTestId('replay-allowed').textContent()).toContain('git reset --hard HEAD~5')
    await shot('false-positive')
    await page.getByTestId('apply').click()
    await page.getByTestId('confirm-apply').click()
    await page.getByTestId('applied').waitFor()
    expect((await check('git reset --hard HEAD~5')).verdict).toBe('allow')
    expect((await check('git reset --hard HEAD~6')).verdict).toBe('deny')
    await page.getByTestId('revert').click()
    await page.getByTestId('reverted').waitFor()
    expect((await check('git reset --hard HEAD~5')).verdict).toBe('deny')
    const verdicts = (await d.request('GET', '/v1/ledger/entries?order=desc&limit=50')).body.entries.map((e: { leaf: { verdict: string } }) => e.leaf.verdict)
    expect(verdicts).toEqual(expect.arrayContaining(['false_positive_applied', 'false_positive_reverted']))
  })

  it('accepts a queued MCP server pin as the operator, ledgered, with its identity shown as text', async () => {
    const queued = await d.request('POST', '/v1/mcp/pin/check', { server: 'docs-server', identity: { transport: 'stdio', command: '<img src=x onerror="window.__pwned=3">' } })
    expect(queued.body.state).toBe('queued')
    await page.goto(`${base}/#/mcp`)
    await page.getByTestId('accept-docs-server').click()
    await page.getByTestId('accepted').waitFor()
    expect(await page.getByTestId('pins').textContent()).toContain('<img src=x onerror=')
    expect(await page.locator('main img').count()).toBe(0)
    const pins = (await d.request('GET', '/v1/mcp/pins')).body.servers
    expect(pins.find((s: { server: string }) => s.server === 'docs-server')).toMatchObject({ state: 'pinned', pinned_fingerprint: queued.body.fingerprint })
    const last = (await d.request('GET', '/v1/ledger/entries?order=desc&limit=1')).body.entries[0].leaf
    expect(last).toMatchObject({ verdict: 'mcp_pin_accepted', facts: { server: 'docs-server', who: expect.stringMatching(/^operator:/) } })
    await shot('mcp')
  })

  it('rejects a queued MCP server pin from the page, ledgered', async () => {
    const queued = await d.request('POST', '/v1/mcp/pin/check', { server: 'spy-server', identity: { transport: 'stdio', command: 'spy' } })
    expect(queued.body.state).toBe('queued')
    await page.goto(`${base}/#/mcp`)
    await page.reload() // the previous test left this page open: load the pins again
    await page.getByTestId('reject-spy-server').click()
    await page.getByTestId('accepted').filter({ hasText: 'spy-server rejected' }).waitFor()
    const pins = (await d.request('GET', '/v1/mcp/pins')).body.servers
    expect(pins.find((s: { server: string }) => s.server === 'spy-server')).toMatchObject({ state: 'queued', rejected_fingerprint: queued.body.fingerprint })
    const last = (await d.request('GET', '/v1/ledger/entries?order=desc&limit=1')).body.entries[0].leaf
    expect(last).toMatchObject({ verdict: 'mcp_pin_rejected', facts: { server: 'spy-server', who: expect.stringMatching(/^operator:/) } })
  })

  it('verifies a consistency proof on the Ledger page and fails a tampered one', async () => {
    await page.goto(`${base}/#/ledger?from=3`)
    await page.getByTestId('checkpoints').waitFor()
    const signed = (await d.request('GET', '/v1/ledger/checkpoints')).body.checkpoints
    expect(signed.length).toBeGreaterThan(0)
    // The oldest: newer ones may be signed between the page's read and this one.
    expect(await page.getByTestId('checkpoints').textContent()).toContain(signed.at(-1).root)
    await page.getByTestId('consistency').click()
    await page.getByTestId('consistency-steps-result').filter({ hasText: 'verified' }).waitFor()
    await shot('ledger')
    await page.route('**/api/v1/ledger/consistency**', async (route) => {
      const res = await route.fetch()
      const json = await res.json()
      json.proof = await flipFirstHash(json.proof)
      await route.fulfill({ response: res, json })
    })
    await page.getByTestId('consistency').click()
    await page.getByTestId('consistency-steps-result').filter({ hasText: 'FAILED at: consistency proof' }).waitFor()
    await page.unroute('**/api/v1/ledger/consistency**')
  })

  it('changes the mode only with a reason, and the banner follows', async () => {
    await page.goto(`${base}/#/policy`)
    // The packs in force (issue 28): the shipped packs, each a daemon-layer file.
    await page.getByTestId('packs').filter({ hasText: 'databases' }).waitFor()
    await page.getByTestId('mode-toggle').click()
    await page.getByRole('alert').filter({ hasText: 'a reason is required' }).waitFor()
    expect(d.engine.mode()).toBe('firewall')
    await page.getByTestId('mode-reason').fill('noisy gate while we tune it')
    await page.getByTestId('mode-toggle').click()
    await page.getByTestId('mode').filter({ hasText: 'monitor' }).waitFor()
    expect(d.engine.mode()).toBe('monitor')
    await shot('policy')
    await d.request('PATCH', '/v1/mode', { mode: 'firewall' }, { authorization: `Bearer ${await d.operatorToken()}` })
  })

  it('renders the remaining pages', async () => {
    await page.goto(`${base}/#/gates`)
    const row = page.locator('[data-testid="gates"] tr', { has: page.getByRole('link', { name: 'git.reset-hard', exact: true }) })
    await row.waitFor()
    const entries = (await d.request('GET', '/v1/ledger/entries?rule=git.reset-hard&limit=1000')).body.entries as { leaf: { verdict: string } }[]
    const denies = entries.filter((e) => e.leaf.verdict === 'deny').length
    expect(denies).toBeGreaterThan(3)
    expect(await row.locator('td').evaluateAll((tds: { textContent: string | null }[]) => tds.slice(5, 9).map((td) => td.textContent))).toEqual([
      String(denies),
      String(denies),
      String(denies),
      `${denies} / 0 / 0`,
    ])
    await shot('gates')
    await page.goto(`${base}/#/sessions`)
    await page.getByTestId('sessions').waitFor()
    expect(await page.getByTestId('sessions').textContent()).toContain(sid)
    await shot('sessions')
  })

  it('shows the svc doctor checks on the Health page: no hooks installed is a problem with its fix', async () => {
    await page.goto(`${base}/#/health`)
    await page.getByTestId('doctor-result').waitFor()
    expect(await page.getByTestId('no-hooks').textContent()).toContain('svc install')
    expect(await page.getByTestId('problems').textContent()).toContain('svc install')
    await shot('health')
  })

  it('saw no CSP violation, no script error and no request leaving 127.0.0.1', async () => {
    const csp = await page.evaluate('window.__csp ?? []')
    expect(csp).toEqual([])
    expect(consoleErrors).toEqual([])
    expect(outside).toEqual([])
  })
})
