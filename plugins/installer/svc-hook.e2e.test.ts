import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureHookKey, hookMac } from '../../hook-key/index.ts'

const SHIM = new URL('./svc-hook.sh', import.meta.url).pathname
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void
let server: Server
let base: string
let handler: Handler = () => {}
let seen: { url?: string; body?: string; install?: string } = {}
const keyHome = mkdtempSync(join(tmpdir(), 'svc-shim-key-'))
const key = ensureHookKey(keyHome)
const keyArg = `--key=${join(keyHome, 'hook.key')}`

/** Headers of an answer the daemon would send: `x-svc-hook: 1` and the MAC over the request's nonce, route and body. */
function svc(req: IncomingMessage, body: string): Record<string, string> {
  const [, , , harness, event] = (req.url ?? '').split('/')
  return { 'content-type': 'application/json', 'x-svc-hook': '1', 'x-svc-mac': hookMac(key, String(req.headers['x-svc-nonce']), harness!, event!, body) }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen = { url: req.url, body, install: req.headers['x-svc-install'] as string }
      handler(req, body, res)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

// Async spawn: the test's own HTTP server must keep answering while the shim runs.
async function runShim(args: string[], stdin: string, env?: NodeJS.ProcessEnv) {
  const child = spawn('sh', [SHIM, ...args, ...(args.some((a) => a.startsWith('--key=')) ? [] : [keyArg])], { stdio: ['pipe', 'pipe', 'pipe'], ...(env ? { env } : {}) })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  // The shim may exit before reading stdin (bad arguments): that EPIPE is expected.
  child.stdin.on('error', () => {})
  child.stdin.end(stdin)
  const [code] = (await once(child, 'close')) as [number]
  return { code, stdout, stderr }
}

const payload = '{"tool_name":"Bash","tool_input":{"command":"ls"}}'

describe('svc-hook shim (real child process)', () => {
  it('posts stdin to the hook route and relays a deny answer verbatim', async () => {
    const deny = '{"decision":"deny","reason":"no"}'
    handler = (req, _body, res) => res.writeHead(200, svc(req, deny)).end(deny)
    const r = await runShim(['gemini', 'BeforeTool', `--url=${base}`, '--svc-install=svc-abc'], payload)
    expect(r).toEqual({ code: 0, stdout: deny, stderr: '' })
    expect(seen).toEqual({ url: '/v1/hooks/gemini/BeforeTool', body: payload, install: 'svc-abc' })
  })

  it('relays an empty answer (Codex allow) as empty stdout', async () => {
    handler = (req, _body, res) => res.writeHead(200, svc(req, '')).end()
    expect(await runShim(['codex', 'PreToolUse', `--url=${base}`], payload)).toEqual({ code: 0, stdout: '', stderr: '' })
  })

  it('fails closed with exit 2 and a reason when the daemon is down', async () => {
    const r = await runShim(['claude-code', 'PreToolUse', '--url=http://127.0.0.1:9'], payload)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/did not answer .*blocked \(fail-closed\)/)
  })

  it('fails closed when the daemon is slower than the timeout', async () => {
    handler = (req, _body, res) => setTimeout(() => res.writeHead(200, svc(req, '{}')).end('{}'), 3000)
    const r = await runShim(['gemini', 'BeforeTool', `--url=${base}`, '--timeout=1'], payload)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/did not answer \(curl exit 28\)/)
  })

  it('fails closed on garbage: not svc, an error status, a non-JSON body', async () => {
    handler = (_req, _body, res) => res.writeHead(200).end('{}')
    expect(await runShim(['cursor', 'preToolUse', `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/did not come from svc/) })
    handler = (_req, _body, res) => res.writeHead(500, { 'x-svc-hook': '1' }).end('{"title":"boom"}')
    expect(await runShim(['cursor', 'preToolUse', `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/answered HTTP 500/) })
    handler = (req, _body, res) => res.writeHead(200, svc(req, '<html>proxy</html>')).end('<html>proxy</html>')
    expect(await runShim(['cursor', 'preToolUse', `--url=${base}`], payload)).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/not JSON/) })
  })

  it('lets the call through when installed fail-open, and never blocks post-tool events', async () => {
    const open = await runShim(['gemini', 'BeforeTool', '--url=http://127.0.0.1:9', '--fail-open'], payload)
    expect(open.code).toBe(0)
    expect(open.stderr).toMatch(/let through because svc was installed fail-open/)
    expect(await runShim(['gemini', 'AfterTool', '--url=http://127.0.0.1:9', '--observe'], payload)).toEqual({ code: 0, stdout: '', stderr: '' })
  })

  // Changing the directory's owner needs root (CI runs as root); without it only the refusals are checked.
  it('takes the Unix socket route with --socket (curl --unix-socket), and refuses a socket it could replace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-shim-sock-'))
    chmodSync(dir, 0o755)
    const path = join(dir, 'hook.sock')
    let via = ''
    const sock = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        via = `${req.url} ${req.headers.host}`
        res.writeHead(200, svc(req, '{}')).end('{}')
      })
    })
    sock.listen(path)
    await once(sock, 'listening')
    try {
      const args = ['claude-code', 'PreToolUse', `--url=${base}`, `--socket=${path}`]
      const mine = await runShim(args, payload)
      expect(mine.code).toBe(2)
      expect(mine.stderr).toContain(`the hook socket's directory ${dir} is yours`)
      if (process.getuid?.() === 0) {
        chownSync(dir, 65534, 65534)
        expect(await runShim(args, payload)).toEqual({ code: 0, stdout: '{}', stderr: '' })
        expect(via).toBe('/v1/hooks/claude-code/PreToolUse localhost')
      }
      const gone = await runShim(['claude-code', 'PreToolUse', `--url=${base}`, `--socket=${dir}/none.sock`], payload)
      expect(gone.code).toBe(2)
      expect(gone.stderr).toMatch(/hook socket .*none\.sock is not there.*svc system daemon/)
      expect((await runShim(['claude-code', 'PreToolUse', `--url=${base}`, '--socket=relative.sock'], payload)).stderr).toContain("bad socket path 'relative.sock'")
    } finally {
      sock.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses a malformed harness or event name in its own command line', async () => {
    expect(await runShim(['../x', 'PreToolUse', `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/bad harness id/) })
    expect(await runShim(['codex', 'Pre/../x', `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/bad event name/) })
  })

  it("accepts only answers with a valid MAC over this call's nonce, from a literal loopback address, with a readable key", async () => {
    const allow = '{}'
    handler = (_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-svc-hook': '1' }).end(allow)
    expect(await runShim(['claude-code', 'PreToolUse', `--url=${base}`], payload)).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/no valid svc MAC/) })
    handler = (_req, _body, res) => res.writeHead(200, { 'x-svc-hook': '1', 'x-svc-mac': 'ab'.repeat(32) }).end(allow)
    expect(await runShim(['claude-code', 'PreToolUse', `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/no valid svc MAC/) })
    // The MAC binds the route and the body: an answer signed for another event, or a changed body, fails.
    handler = (req, _body, res) =>
      res.writeHead(200, { ...svc(req, allow), 'x-svc-mac': hookMac(key, String(req.headers['x-svc-nonce']), 'claude-code', 'PostToolUse', allow) }).end(allow)
    expect(await runShim(['claude-code', 'PreToolUse', `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/no valid svc MAC/) })
    handler = (req, _body, res) => res.writeHead(200, svc(req, '{"decision":"deny"}')).end(allow)
    expect(await runShim(['gemini', 'BeforeTool', `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/no valid svc MAC/) })
    handler = (req, _body, res) => res.writeHead(200, svc(req, allow)).end(allow)
    expect(await runShim(['claude-code', 'PreToolUse', `--url=${base}`], payload)).toEqual({ code: 0, stdout: allow, stderr: '' })
    expect(await runShim(['claude-code', 'PreToolUse', `--url=${base.replace('127.0.0.1', 'localhost')}`], payload)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/not a literal loopback address/),
    })
    expect(await runShim(['claude-code', 'PreToolUse', `--url=${base}`, '--key=/nonexistent/hook.key'], payload)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/cannot read the hook key/),
    })
  })

  // The agent under control can write its own home and often a directory early on PATH (~/.local/bin):
  // neither a ~/.curlrc nor a fake `curl` may turn a dead daemon into an allow.
  it('ignores ~/.curlrc, proxy variables and a curl planted early on PATH', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-shim-home-'))
    try {
      handler = (req, _body, res) => res.writeHead(200, svc(req, '{}')).end('{}')
      writeFileSync(join(home, '.curlrc'), `proxy = ${base}\nconnect-to = ::127.0.0.1:${new URL(base).port}\n`)
      const bin = join(home, 'bin')
      mkdirSync(bin)
      writeFileSync(join(bin, 'curl'), "#!/bin/sh\ncat >/dev/null\nprintf '{}\\n200 1'\n")
      chmodSync(join(bin, 'curl'), 0o755)
      const env = { HOME: home, PATH: `${bin}:${process.env.PATH}`, http_proxy: base, HTTP_PROXY: base, ALL_PROXY: base }
      const r = await runShim(['claude-code', 'PreToolUse', '--url=http://127.0.0.1:9'], payload, env)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/did not answer/)
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
