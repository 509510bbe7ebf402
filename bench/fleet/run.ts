/**
 * bench/fleet: (1) OTLP export throughput — leaves/s from a ledger.db through the official protobuf exporter to
 * a local OTLP/HTTP receiver that reads every request body and answers 200 (batches of 512, cursor written
 * after each accepted batch); (2) the check path with and without export running — autocannon against
 * POST /v1/gates/check on a real daemon process, once without SVC_OTLP_ENDPOINT and once exporting
 * continuously to the receiver (100 ms poll).
 * Run: npm run bench:fleet   (BENCH_LEAVES, BENCH_SECONDS, BENCH_CONNECTIONS)
 */
import { createServer } from 'node:http'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { startDaemon } from '../lib/daemon.ts'
import { loadOtlpExport } from '../../plugins/otlp-export/index.ts'
import { VERSION } from '../../cli/paths.ts'
import { SqliteLedger } from '../../core/index.ts'
import { decisionDraft } from '../../testing/ledger-fixtures.ts'
import { unattestedSession } from '../lib/operator.ts'

const LEAVES = Number(process.env.BENCH_LEAVES ?? 50_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)

let received = 0
let bytes = 0
const receiver = createServer((req, res) => {
  req.on('data', (c: Buffer) => (bytes += c.length))
  req.on('end', () => {
    received++
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
  })
})
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
const endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fleet-'))

async function checkLoad(label: string, env: NodeJS.ProcessEnv): Promise<void> {
  const home = join(dir, label.replace(/\W+/g, '-'))
  const d = await startDaemon(home, 0, env)
  try {
    const session = await unattestedSession(d.url)
    const body = (command: string) => JSON.stringify({ session_id: session, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })
    const requests = [body('git status'), body('npm test'), body('rm -rf ~')].map((b) => ({ method: 'POST' as const, body: b }))
    const opts = { url: `${d.url}/v1/gates/check`, connections: CONNECTIONS, method: 'POST' as const, headers: { 'content-type': 'application/json' }, requests }
    const warm = received
    await autocannon({ ...opts, duration: 1 })
    // Measure only once the export thread is up and shipping (its start is not the steady state).
    for (let i = 0; env.SVC_OTLP_ENDPOINT && received === warm && i < 300; i++) await new Promise((r) => setTimeout(r, 100))
    const before = received
    const r = await autocannon({ ...opts, duration: SECONDS })
    console.log(
      `${label.padEnd(34)} ${r.requests.average.toFixed(0).padStart(7)} checks/s   p50=${r.latency.p50} ms  p99=${r.latency.p99} ms  non2xx=${r.non2xx}  export requests during run: ${received - before}`,
    )
  } finally {
    const exited = new Promise((r) => d.child.once('exit', r))
    d.child.kill('SIGTERM')
    await exited
  }
}

try {
  console.log(`svc bench/fleet — Node ${process.version}`)
  const home = join(dir, 'export')
  mkdirSync(home, { recursive: true })
  const ledger = new SqliteLedger({ path: join(home, 'ledger.db') })
  for (let i = 0; i < LEAVES; i += 1000) {
    const chunk = Array.from({ length: Math.min(1000, LEAVES - i) }, (_, j) => ledger.append(decisionDraft('ses_bench', 'unattested', i + j)))
    await Promise.all(chunk)
  }
  await ledger.close()
  const { openOtlpExport } = await loadOtlpExport()
  const opened = openOtlpExport(home, { endpoint, batchSize: 512 }, { userHome: home, version: VERSION })
  const started = performance.now()
  const totals = await opened.shipper.drain()
  const seconds = (performance.now() - started) / 1000
  await opened.close()
  console.log(
    `export: ${totals.leaves} leaves in ${totals.requests} requests, ${seconds.toFixed(2)} s = ${Math.round(totals.leaves / seconds).toLocaleString('en-US')} leaves/s (${(bytes / 1e6).toFixed(1)} MB protobuf, ${Math.round(bytes / totals.leaves)} B/leaf)`,
  )

  await checkLoad('check, export off', {})
  await checkLoad('check, export on (100 ms poll)', { SVC_OTLP_ENDPOINT: endpoint, SVC_OTLP_INTERVAL: '100ms' })
} finally {
  receiver.close()
  rmSync(dir, { recursive: true, force: true })
}
