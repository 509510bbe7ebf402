/**
 * The shim's two paths as installed: `bash -p` (/dev/tcp + two sha256sum) where /bin/bash is 5.1 or newer, and
 * the POSIX fallback (sh + curl + openssl) everywhere else. Both must relay only answers with a valid MAC; the
 * bash path must carry large payloads intact and ignore a planted BASH_ENV.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hookMac } from '../../hook-key/index.ts'
import { installShim } from './apply.ts'
import { shimState } from './shim.ts'

const home = mkdtempSync(join(tmpdir(), 'svc-shim-paths-'))
let server: Server
let base: string
let key: string
let answer: (req: IncomingMessage, body: string) => { headers: Record<string, string>; body: string }
let received = ''

function signed(req: IncomingMessage, body: string): { headers: Record<string, string>; body: string } {
  const [, , , harness, event] = (req.url ?? '').split('/')
  return { headers: { 'x-svc-hook': '1', 'x-svc-mac': hookMac(key, String(req.headers['x-svc-nonce']), harness!, event!, body) }, body }
}

beforeAll(async () => {
  installShim(home)
  key = readFileSync(join(home, 'hook.key'), 'utf8').trim()
  server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      received = body
      const a = answer(req, body)
      res.writeHead(200, a.headers).end(a.body)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
  rmSync(home, { recursive: true, force: true })
})

async function run(cmd: string, args: string[], stdin: string, env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  child.stdin.on('error', () => {})
  child.stdin.end(stdin)
  const [code] = (await once(child, 'close')) as [number]
  return { code, stdout, stderr }
}

const payload = '{"tool_name":"Bash","tool_input":{"command":"ls"}}'

describe('the installed shim', () => {
  const shim = join(home, 'bin', 'svc-hook')

  it('starts bash -p where /bin/bash is, and counts as current', () => {
    expect(readFileSync(shim, 'utf8').split('\n')[0]).toBe('#!/bin/bash -p')
    expect(shimState(home)).toBe('current')
  })

  it('relays a large payload byte for byte and a signed answer', async () => {
    const big = JSON.stringify({ tool_name: 'Write', tool_input: { file_path: '/tmp/x', content: 'é'.repeat(300_000) } })
    answer = (req) => signed(req, '{"decision":"deny"}')
    expect(await run(shim, ['gemini', 'BeforeTool', `--url=${base}`], big)).toEqual({ code: 0, stdout: '{"decision":"deny"}', stderr: '' })
    expect(received).toBe(big)
  })

  it('ignores a BASH_ENV file (bash -p), so nothing planted there runs or answers', async () => {
    const planted = join(home, 'planted.sh')
    writeFileSync(planted, "printf '{}'; exit 0\n")
    const r = await run(shim, ['claude-code', 'PreToolUse', '--url=http://127.0.0.1:9'], payload, { ...process.env, BASH_ENV: planted })
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
  })
})

describe('the POSIX fallback (sh + curl + openssl, no bash)', () => {
  // The shipped file without its move to bash: what runs where /bin/bash is missing or older than 5.1.
  const posix = join(home, 'svc-hook-posix')
  writeFileSync(posix, readFileSync(new URL('./svc-hook.sh', import.meta.url), 'utf8').replace(/^\[ -n "\$\{BASH_VERSION:-\}" \].*$/m, ''))
  const args = ['claude-code', 'PreToolUse', `--key=${join(home, 'hook.key')}`]

  it('relays a signed answer and blocks an unsigned one or a dead daemon', async () => {
    answer = (req) => signed(req, '{}')
    expect(await run('sh', [posix, ...args, `--url=${base}`], payload)).toEqual({ code: 0, stdout: '{}', stderr: '' })
    expect(received).toBe(payload)
    answer = () => ({ headers: { 'x-svc-hook': '1', 'x-svc-mac': 'ab'.repeat(32) }, body: '{}' })
    expect(await run('sh', [posix, ...args, `--url=${base}`], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/no valid svc MAC/) })
    expect(await run('sh', [posix, ...args, '--url=http://127.0.0.1:9'], payload)).toMatchObject({ code: 2, stderr: expect.stringMatching(/did not answer/) })
  })
})
