/**
 * bench/mcp-proxy: what `svc mcp-proxy` adds to one MCP `tools/call`. The SDK's client calls the fixture
 * server's `echo` tool N times directly, then N times through the real relay process deciding every call on a
 * real daemon process (verdict, ledger leaf, outcome row); printed side by side with the difference, and the
 * time from spawn to an initialized session both ways (the relay starts once per server and harness session).
 * Run: npm run bench:mcp-proxy   (BENCH_N to change the number of calls per path)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { PROJECT_ROOT } from '../../cli/paths.ts'
import { startDaemon } from '../lib/daemon.ts'
import { BENCH_PASSWORD, unattestedSession } from '../lib/operator.ts'
import { formatUs, summarise } from '../lib/stats.ts'

const N = Number(process.env.BENCH_N ?? 300)
const FIXTURE = join(PROJECT_ROOT, 'test/fixtures/mcp/server.ts')

async function connect(command: string[], env: Record<string, string>): Promise<{ client: Client; startNs: number }> {
  const t0 = process.hrtime.bigint()
  const client = new Client({ name: 'bench', version: '1' })
  await client.connect(new StdioClientTransport({ command: command[0]!, args: command.slice(1), env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'ignore' }))
  return { client, startNs: Number(process.hrtime.bigint() - t0) }
}

async function calls(client: Client): Promise<number[]> {
  for (let i = 0; i < 20; i++) await client.callTool({ name: 'echo', arguments: { text: 'warm' } })
  const out: number[] = []
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint()
    const res = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } })
    out.push(Number(process.hrtime.bigint() - t0))
    if (res.isError) throw new Error(`call ${i} was denied: ${JSON.stringify(res.content)}`)
  }
  return out
}

const home = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'))
const daemon = await startDaemon(home, 20000 + Math.floor(Math.random() * 20000))
try {
  await unattestedSession(daemon.url)
  const direct = await connect([process.execPath, FIXTURE], {})
  const directNs = await calls(direct.client)
  await direct.client.close()

  const env = { SVC_HOME: home, SVC_URL: daemon.url }
  const proxyArgv = [process.execPath, join(PROJECT_ROOT, 'cli/bin.js'), 'mcp-proxy', '--server', 'bench', '--', process.execPath, FIXTURE]
  const proxied = await connect(proxyArgv, env)
  await proxied.client.listTools()
  // Pin what the relay saw (an operator's accept), then list again so the client sees the tools.
  const login = await fetch(`${daemon.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: BENCH_PASSWORD }) })
  const { token } = (await login.json()) as { token: string }
  const pins = (await (await fetch(`${daemon.url}/v1/mcp/pins`)).json()) as { servers: { server: string; served_fingerprint: string }[] }
  const fingerprint = pins.servers.find((s) => s.server === 'bench')!.served_fingerprint
  await fetch(`${daemon.url}/v1/mcp/pin/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ server: 'bench', fingerprint }),
  })
  await proxied.client.listTools()
  const proxiedNs = await calls(proxied.client)
  await proxied.client.close()

  const d = summarise(directNs)
  const p = summarise(proxiedNs)
  console.log(`tools/call echo, ${N} sequential calls per path (SDK client, fixture server over stdio)`)
  console.log(formatUs('direct', d))
  console.log(formatUs('through svc mcp-proxy + daemon', p))
  console.log(`added per call: p50 ${((p.p50 - d.p50) / 1000).toFixed(2)} ms, p99 ${((p.p99 - d.p99) / 1000).toFixed(2)} ms, mean ${((p.mean - d.mean) / 1000).toFixed(2)} ms`)
  console.log(`spawn to initialized: direct ${(direct.startNs / 1e6).toFixed(0)} ms, through the relay ${(proxied.startNs / 1e6).toFixed(0)} ms`)
} finally {
  daemon.child.kill('SIGTERM')
  rmSync(home, { recursive: true, force: true })
}
