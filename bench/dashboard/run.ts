/**
 * bench/dashboard: the web dashboard's first load (bytes and time in headless Chromium, when /usr/bin/chromium
 * exists; bytes over plain HTTP otherwise) and SSE fan-out: check throughput (autocannon) with 0 and with 10
 * logged-in event-stream clients, and whether every client received every decision, and how long after the load
 * the last one caught up. A real daemon process on ephemeral ports (API and dashboard).
 * Run: npm run bench:dashboard   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_SSE_CLIENTS to change the load)
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { BENCH_PASSWORD, unattestedSession } from '../lib/operator.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const SSE_CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 10)
const CHROMIUM = '/usr/bin/chromium'

const home = mkdtempSync(join(tmpdir(), 'svc-bench-dashboard-'))
const child = spawn(process.execPath, ['cli/main.ts', 'daemon', '--port', '0', '--dashboard-port', '0', '--home', home], {
  cwd: PROJECT_ROOT,
  env: { ...process.env, SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: BENCH_PASSWORD, SVC_LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'inherit'],
})
const { api, dashboard } = await new Promise<{ api: string; dashboard: string }>((resolve, reject) => {
  let buf = ''
  child.stdout!.on('data', (b: Buffer) => {
    buf += b
    const m = /"address":"(http:[^"]+)","dashboard":"(http:[^"]+)"/.exec(buf)
    if (m) resolve({ api: m[1]!, dashboard: m[2]! })
  })
  child.once('exit', (code) => reject(new Error(`daemon exited ${code}`)))
})

/** The login's cookie and its secret: the event stream needs both, as every dashboard read does. */
async function loginHeaders(): Promise<Record<string, string>> {
  const res = await fetch(`${dashboard}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: BENCH_PASSWORD }) })
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': ((await res.json()) as { csrf: string }).csrf }
}

/** Bytes of every file the page loads, fetched over plain HTTP (the module graph is fixed: web/ and three vendor files). */
async function assetBytes(): Promise<{ files: number; bytes: number }> {
  const urls = ['/', '/app/style.css', '/vendor/preact.mjs', '/vendor/hooks.mjs', '/vendor/htm.mjs']
  const main = await (await fetch(`${dashboard}/app/main.js`)).text()
  const seen = new Set(['/app/main.js'])
  const queue: (readonly [string, string])[] = [['/app/main.js', main]]
  let bytes = Buffer.byteLength(main)
  while (queue.length) {
    const [url, text] = queue.pop()!
    for (const m of text.matchAll(/from '(\.[^']+)'/g)) {
      const next = new URL(m[1]!, `http://x${url}`).pathname
      if (seen.has(next)) continue
      seen.add(next)
      const body = await (await fetch(`${dashboard}${next}`)).text()
      bytes += Buffer.byteLength(body)
      queue.push([next, body])
    }
  }
  for (const u of urls) bytes += (await (await fetch(`${dashboard}${u}`)).arrayBuffer()).byteLength
  return { files: seen.size + urls.length, bytes }
}

async function browserFirstLoad(): Promise<string> {
  if (!existsSync(CHROMIUM)) return `(no ${CHROMIUM}: first-load time not measured)`
  const { chromium } = await import('playwright-core')
  const profile = mkdtempSync(join(tmpdir(), 'svc-bench-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  try {
    const page = context.pages()[0] ?? (await context.newPage())
    let bytes = 0
    page.on(
      'response',
      (r) =>
        void r.body().then(
          (b) => (bytes += b.length),
          () => {},
        ),
    )
    const t0 = performance.now()
    await page.goto(`${dashboard}/`)
    await page.getByLabel('Operator password').waitFor()
    const loginMs = performance.now() - t0
    await page.getByLabel('Operator password').fill(BENCH_PASSWORD)
    const t1 = performance.now()
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('conn').filter({ hasText: 'live' }).waitFor()
    const liveMs = performance.now() - t1
    return `cold load to the login form ${loginMs.toFixed(0)} ms; login to a live stream ${liveMs.toFixed(0)} ms; ${(bytes / 1024).toFixed(1)} KiB received in the browser (uncompressed)`
  } finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
}

/** A logged-in event-stream reader that records the seqs it receives. */
async function sseClient(headers: Record<string, string>, from: number): Promise<{ seqs: Set<number>; close(): void }> {
  const controller = new AbortController()
  const res = await fetch(`${dashboard}/events?after=${from}`, { headers, signal: controller.signal })
  const seqs = new Set<number>()
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buf = ''
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buf += decoder.decode(value, { stream: true })
        let at
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const id = /^id: (\d+)$/m.exec(buf.slice(0, at))
          if (id) seqs.add(Number(id[1]))
          buf = buf.slice(at + 2)
        }
      }
    } catch {
      // aborted
    }
  })()
  return { seqs, close: () => controller.abort() }
}

async function checkLoad(session: string): Promise<autocannon.Result> {
  const body = (command: string) => JSON.stringify({ session_id: session, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })
  return autocannon({
    url: `${api}/v1/gates/check`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [body('git status'), body('npm test'), body('rm -rf ~')].map((b) => ({ method: 'POST', body: b })),
  })
}

const treeSize = async () => ((await (await fetch(`${api}/v1/ledger/root`)).json()) as { tree_size: number }).tree_size

try {
  const session = await unattestedSession(api)
  const assets = await assetBytes()
  console.log(`svc bench/dashboard — Node ${process.version}`)
  console.log(`first load: ${assets.files} files, ${(assets.bytes / 1024).toFixed(1)} KiB uncompressed (no bundler; Preact + htm from node_modules)`)
  console.log(`first load (Chromium): ${await browserFirstLoad()}`)
  await checkLoad(session) // warm-up
  const alone = await checkLoad(session)
  const login = await loginHeaders()
  const start = (await treeSize()) - 1
  const clients = await Promise.all(Array.from({ length: SSE_CLIENTS }, () => sseClient(login, start)))
  const withClients = await checkLoad(session)
  const last = (await treeSize()) - 1
  const t0 = performance.now()
  while (clients.some((c) => !c.seqs.has(last)) && performance.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 10))
  const catchUpMs = performance.now() - t0
  const expected = last - start
  // Requests autocannon left in flight land after `last`: count the range (start, last] only.
  const complete = clients.filter((c) => [...c.seqs].filter((q) => q > start && q <= last).length === expected).length
  for (const c of clients) c.close()
  const row = (name: string, r: autocannon.Result) =>
    `${name.padEnd(34)} ${r.requests.average.toFixed(0).padStart(6)} checks/s  p50=${r.latency.p50} ms  p99=${r.latency.p99} ms  non2xx=${r.non2xx}`
  console.log(`SSE fan-out — autocannon ${CONNECTIONS} connections × ${SECONDS}s on POST /v1/gates/check`)
  console.log(row('no dashboard clients', alone))
  console.log(row(`${SSE_CLIENTS} event-stream clients`, withClients))
  console.log(
    `throughput ratio with/without clients: ${(withClients.requests.average / alone.requests.average).toFixed(3)}; ${expected} decisions streamed to each client (${(expected * SSE_CLIENTS).toLocaleString('en')} frames), ${complete}/${SSE_CLIENTS} clients got every one, the last caught up ${catchUpMs.toFixed(0)} ms after the load ended`,
  )
} finally {
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
  rmSync(home, { recursive: true, force: true })
}
