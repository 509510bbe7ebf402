/**
 * The relay against a hostile stdio server (test/fixtures/mcp/hostile-server.ts) and a hostile client, through the
 * real relay process and a real daemon: one answer per request id, unsolicited answers and batches decided, lines
 * the relay cannot read refused (never forwarded), `tools/call` without an id refused, line length bounded, the
 * first call judged on the list of this run, list_changed floods coalesced so the daemon stays responsive.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileCache } from './helpers/child-env.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { proxyArgv, ROOT } from './helpers/mcp-proxy.ts'
import { waitFor } from './helpers/wait.ts'

const HOSTILE = `${ROOT}test/fixtures/mcp/hostile-server.ts`
let daemon: TestDaemon
let home: string
let cwd: string
let logs = 0

function env(tricks: string, log: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...compileCache(), HOME: cwd, SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url, MCP_HOSTILE: tricks, MCP_HOSTILE_LOG: log }
}

/** The SDK client through the relay to the hostile server; `received` is what reached the server. */
async function sdk(tricks: string) {
  const log = join(home, `server-${++logs}.log`)
  const transport = new StdioClientTransport({ command: process.execPath, args: proxyArgv('hx', [process.execPath, HOSTILE]), env: env(tricks, log), cwd, stderr: 'pipe' })
  let err = ''
  transport.stderr?.on('data', (c) => (err += c))
  const client = new Client({ name: 'svc-test', version: '1.0.0' })
  const errors: Error[] = []
  client.onerror = (e) => errors.push(e)
  await client.connect(transport)
  return { client, errors, stderr: () => err, received: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''), close: () => client.close() }
}

/** The relay as a raw process: raw client lines in, every line (and byte count) out. */
function raw(tricks: string) {
  const log = join(home, `server-${++logs}.log`)
  const child = spawn(process.execPath, proxyArgv('hx', [process.execPath, HOSTILE]), { cwd, env: env(tricks, log) })
  const lines: unknown[] = []
  let bytes = 0
  let buffered = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    bytes += c.length
    buffered += c.toString('utf8')
    let nl = buffered.indexOf('\n')
    while (nl >= 0) {
      lines.push(JSON.parse(buffered.slice(0, nl)))
      buffered = buffered.slice(nl + 1)
      nl = buffered.indexOf('\n')
    }
  })
  child.stderr.on('data', (c) => (stderr += c))
  const exit = new Promise((r) => child.on('exit', r))
  const sendLine = (line: string) => child.stdin.write(`${line}\n`)
  const answerTo = (id: unknown) => waitFor(() => lines.find((l: any) => !Array.isArray(l) && l.id === id) as any, `an answer to ${JSON.stringify(id)}`)
  const init = async () => {
    sendLine(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }))
    await answerTo(0)
    sendLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
  }
  const close = async () => {
    child.stdin.end()
    await exit
  }
  return { lines, bytes: () => bytes, sendLine, answerTo, init, close, stderr: () => stderr, received: () => (existsSync(log) ? readFileSync(log, 'utf8') : '') }
}

beforeAll(async () => {
  home = tempDir('svc-relay-hostile-')
  cwd = join(home, 'work')
  mkdirSync(cwd, { recursive: true })
  daemon = await startTestDaemon({ home: join(home, '.svc'), env: { SVC_USER_HOME: home } })
  await daemon.session()
  // The honest server, seen once and pinned by the operator.
  const first = await sdk('')
  await first.client.listTools()
  await first.close()
  const pin = (await daemon.request('GET', '/v1/mcp/pins')).body.servers.find((s: any) => s.server === 'hx')
  const accept = await daemon.request('POST', '/v1/mcp/pin/accept', { server: 'hx', fingerprint: pin.served_fingerprint }, { authorization: `Bearer ${await daemon.operatorToken()}` })
  expect(accept.status).toBe(200)
})

afterAll(async () => {
  await daemon?.stop()
})

describe('svc mcp-proxy against a hostile server', () => {
  it('passes one answer per request id: a second tools/list answer (changed tool, new tool) never reaches the client', async () => {
    const h = await sdk('double-list')
    const { tools } = await h.client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'flood', 'long'])
    expect(tools.find((t) => t.name === 'echo')?.description).toBe('Echoes its text.')
    await new Promise((r) => setTimeout(r, 200))
    await h.close()
    expect(h.stderr()).toContain('which no request in flight has')
  })

  it('decides a tools/list answer sent as a batch: filtered like any other, never passed whole', async () => {
    const h = raw('batch-list')
    await h.init()
    h.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }))
    const answer = await h.answerTo(1)
    expect(h.lines.some(Array.isArray)).toBe(false)
    expect(answer.result.tools.map((t: any) => t.name)).not.toContain('exfil')
    expect(answer.result.tools.map((t: any) => t.name)).not.toContain('echo')
    await h.close()
  })

  it('drops an answer to an id the client never sent, and records it', async () => {
    const h = raw('unsolicited')
    await h.init()
    h.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }))
    await h.answerTo(2)
    expect(h.lines.find((l: any) => l.id === 424242)).toBeUndefined()
    await h.close()
    const traffic = await waitFor(async () => {
      const t = (await daemon.request('GET', '/v1/mcp/traffic?server=hx&limit=500')).body.servers?.[0]
      return t?.entries.find((e: any) => e.id === '424242') ? t : undefined
    }, 'the dropped answer in the traffic record')
    expect(traffic.entries.find((e: any) => e.id === '424242').refused).toContain('no request in flight')
  })

  it('refuses a client line it cannot parse (NaN) and a tools/call without an id: neither reaches the server', async () => {
    const h = raw('')
    await h.init()
    h.sendLine('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":NaN}}}')
    h.sendLine(JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: 'no id' } } }))
    const refused = await h.answerTo(null)
    expect(refused.error.code).toBe(-32700)
    h.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }))
    await h.answerTo(6)
    await h.close()
    expect(h.received()).toContain('"ping"')
    expect(h.received()).not.toContain('NaN')
    expect(h.received()).not.toContain('no id')
    expect(h.stderr()).toContain('refused a client message')
  })

  it('judges the first call of a run on the tool list this server serves now, not the pinned one of an earlier run', async () => {
    const h = await sdk('changed')
    const result: any = await h.client.callTool({ name: 'echo', arguments: { text: 'x' } })
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toContain('description changed')
    expect(h.received()).not.toContain('"name":"echo","arguments"')
    await h.close()
  })

  it('drops a line longer than the bound instead of buffering and passing it', async () => {
    const h = raw('long')
    await h.init()
    h.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'long', arguments: {} } }))
    expect((await h.answerTo(3)).result.content[0].text).toBe('long: done')
    expect(h.bytes()).toBeLessThan(1024 * 1024)
    await h.close()
    expect(h.stderr()).toMatch(/dropped a line of more than \d+ bytes from the server/)
  })

  it('coalesces a flood of list_changed: the client hears a few, the daemon keeps answering health checks', async () => {
    const h = await sdk('flood')
    await h.client.listTools()
    let heard = 0
    h.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void heard++)
    let slowest = 0
    let done = false
    const probe = (async () => {
      while (!done) {
        const t0 = Date.now()
        await daemon.request('GET', '/v1/health')
        slowest = Math.max(slowest, Date.now() - t0)
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    await h.client.callTool({ name: 'flood', arguments: {} })
    await new Promise((r) => setTimeout(r, 1500))
    done = true
    await probe
    await h.close()
    expect(heard).toBeGreaterThanOrEqual(1)
    expect(heard).toBeLessThanOrEqual(5)
    expect(slowest).toBeLessThan(2000)
  })
})
