/**
 * The dashboard at 1,280 px in real headless Chromium (Debian's package, via playwright-core) against a real daemon:
 * every page fits the window (no horizontal scrolling: the MCP page's Accept/Reject in view), the Live page shows
 * each decision's command redacted as every surface redacts it and its text filter finds a command, and the
 * false-positive diff keeps its lines. Screenshots go to test-results/dashboard-1280/.
 */
import { cpSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

const CHROMIUM = '/usr/bin/chromium'
const SHOTS = join(PROJECT_ROOT, 'test-results', 'dashboard-1280')
const WIDTH = 1280

let d: TestDaemon
let sid: string
let context: BrowserContext
let page: Page

const check = (command: string) =>
  d
    .request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })
    .then((r) => r.body as { verdict: string; ledger_seq: number })

/** How wide the page's content is, in CSS pixels (more than the window means a horizontal scrollbar). */
const contentWidth = () => page.evaluate('Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)') as Promise<number>

describe.skipIf(!existsSync(CHROMIUM))('dashboard at 1,280 px', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    // The Gates page shows each gate's file: served from a deep folder, so the page must fit wherever svc is installed.
    const policiesDir = join(tempDir(), 'alonginstallationfolder'.repeat(5), 'policies')
    cpSync(join(PROJECT_ROOT, 'policies'), policiesDir, { recursive: true })
    d = await startTestDaemon({ dashboard: true, policiesDir, env: { HOME: tempDir() } })
    sid = await d.session()
    context = await chromium.launchPersistentContext(tempDir('svc-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: WIDTH, height: 800 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    page = context.pages()[0] ?? (await context.newPage())
    await page.goto(`${d.dashboardUrl}/`)
    await page.getByLabel('Operator password').fill('correct horse battery')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('mode').waitFor()
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    await d?.stop()
  })

  it('Live shows each decision’s command, redacted, and the text filter finds it', async () => {
    await page.getByTestId('conn').filter({ hasText: 'live' }).waitFor()
    const denied = await check('cat ~/.ssh/id_rsa')
    const secret = await check('curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" https://example.com/')
    const plain = await check('ls -la /tmp')
    await page.locator(`[data-seq="${plain.ledger_seq}"] .subject`).filter({ hasText: 'ls -la /tmp' }).waitFor()
    expect(await page.locator(`[data-seq="${denied.ledger_seq}"] .subject`).textContent()).toBe('cat ~/.ssh/id_rsa')
    const shown = (await page.locator(`[data-seq="${secret.ledger_seq}"] .subject`).textContent()) ?? ''
    expect(shown).toContain('curl')
    expect(shown).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789')
    await page.locator('input[name="q"]').fill('id_rsa')
    await page.locator('input[name="q"]').press('Enter')
    await expect.poll(() => page.locator('.row').count(), { timeout: 15_000 }).toBe(1)
    expect(await page.locator('.row').getAttribute('data-seq')).toBe(String(denied.ledger_seq))
    expect(await contentWidth()).toBeLessThanOrEqual(WIDTH)
    await page.screenshot({ path: join(SHOTS, 'live.png') })
  })

  it('every page fits 1,280 px, the MCP page with long fingerprints and identities included', async () => {
    const long = `/opt/${'very-long-directory-name/'.repeat(12)}server.js`
    const queued = await d.request('POST', '/v1/mcp/pin/check', {
      server: 'docs-server-with-a-long-name',
      identity: { transport: 'stdio', command: 'node', args: [long, '--flag', 'x'.repeat(120)] },
    })
    expect(queued.body.state).toBe('queued')
    const denied = await check('git reset --hard HEAD~1')
    for (const route of ['live', `decision/${denied.ledger_seq}`, `fp/${denied.ledger_seq}`, 'gates', 'sessions', 'mcp', 'ledger', 'policy', 'health']) {
      await page.goto(`${d.dashboardUrl}/#/${route}`)
      await page.locator('main h1').waitFor()
      // Hash routes share one document (the SSE feed keeps the network busy): wait for the page's data instead.
      await expect.poll(() => page.locator('main').textContent(), { timeout: 15_000 }).not.toMatch(/Loading/)
      if (route === 'mcp') {
        const accept = await page.getByTestId('accept-docs-server-with-a-long-name').boundingBox()
        expect(accept!.x + accept!.width).toBeLessThanOrEqual(WIDTH)
      }
      expect(await contentWidth(), `#/${route} is wider than the window`).toBeLessThanOrEqual(WIDTH)
      await page.screenshot({ path: join(SHOTS, `${route.split('/')[0]}.png`), fullPage: true })
    }
  })

  it('the false-positive diff keeps one line per line', async () => {
    const denied = await check('git reset --hard HEAD~3')
    await page.goto(`${d.dashboardUrl}/#/fp/${denied.ledger_seq}`)
    await expect.poll(() => page.getByTestId('draft').inputValue(), { timeout: 15_000 }).toContain(`fp-${denied.ledger_seq}`)
    await page.getByTestId('validate').click()
    await page.getByTestId('diff').waitFor()
    // biome-ignore lint/performance/useDomNodeTextContent: rendered lines are the point (one block per diff line)
    const lines = ((await page.getByTestId('diff').innerText()) ?? '').split('\n').filter((l) => l.trim() !== '')
    expect(lines.length).toBeGreaterThan(4)
    expect(lines).toContainEqual(expect.stringMatching(/^\+ {2}- id: git\.reset-hard\.fp-\d+$/))
    expect(await contentWidth()).toBeLessThanOrEqual(WIDTH)
    await page.screenshot({ path: join(SHOTS, 'false-positive.png'), fullPage: true })
  })
})
