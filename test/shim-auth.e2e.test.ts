/**
 * The hook shim trusts only the daemon, end to end: the real installed shim against the real daemon, then
 * against a stand-in bound to the daemon's port once the daemon is gone (what an agent that crashed the
 * daemon could run). The stand-in answers "allow" with `x-svc-hook: 1` and no MAC, a wrong MAC, or an
 * answer the real daemon gave earlier (its MAC is over an old nonce): the shim blocks every one.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { statSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installShim } from '../plugins/installer/apply.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
let home: string
let shim: string
let port: string

async function runShim(url: string, command: string) {
  const child = spawn('sh', [shim, 'claude-code', 'PreToolUse', `--url=${url}`, '--svc-install=svc-test'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  child.stdin.on('error', () => {})
  child.stdin.end(
    JSON.stringify({ session_id: 's', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `toolu_${Math.random()}` }),
  )
  const [code] = (await once(child, 'close')) as [number]
  return { code, stdout, stderr }
}

beforeAll(async () => {
  home = tempDir('svc-shim-auth-')
  d = await startTestDaemon({ home })
  await d.session()
  shim = installShim(home)
  port = new URL(d.url).port
})
afterAll(async () => {
  await d.stop()
})

describe('the hook shim against the real daemon and a stand-in on its port', () => {
  it("keeps the hook key private and relays the real daemon's answers", async () => {
    expect(statSync(join(home, 'hook.key')).mode & 0o777).toBe(0o600)
    expect(await runShim(`http://127.0.0.1:${port}`, 'ls')).toEqual({ code: 0, stdout: '{}', stderr: '' })
    const rm = await runShim(`http://127.0.0.1:${port}`, 'rm -rf /')
    expect(rm.code).toBe(0)
    expect(JSON.parse(rm.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' })
  })

  it('keeps agents away from the hook key through their tools (the self-protection pack)', async () => {
    const session = await d.session()
    const key = join(home, 'hook.key')
    for (const [tool, input] of [
      ['Read', { file_path: key }],
      ['Bash', { command: `cat ${key}` }],
      ['Write', { file_path: key, content: 'f'.repeat(64) }],
    ] as const) {
      const res = (await d.request('POST', '/v1/gates/check', { session_id: session, source: 'test', tool, input, cwd: '/tmp' })).body
      expect(res, tool).toMatchObject({ verdict: 'deny' })
      // A `.key` file is also a private key to the secrets pack; either gate names why.
      expect(res.rule_id, tool).toMatch(/^(self\.svc-home|secrets\.ssh-private-key)$/)
    }
  })

  it('blocks a stand-in that answers allow without a MAC, with a wrong MAC, or with a replayed real answer', async () => {
    // An answer the real daemon gave to another call, MAC and all: the stand-in replays it later.
    const nonce = 'a'.repeat(32)
    const old = await fetch(`${d.url}/v1/hooks/claude-code/PreToolUse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-nonce': nonce },
      body: JSON.stringify({ session_id: 's', cwd: '/tmp', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_old' }),
    })
    const recorded = { body: await old.text(), mac: old.headers.get('x-svc-mac')! }
    expect(recorded).toMatchObject({ body: '{}', mac: expect.stringMatching(/^[0-9a-f]{64}$/) })
    await d.stop()

    let answer: (req: IncomingMessage, res: ServerResponse) => void = () => {}
    const standIn = createServer((req, res) => {
      req.resume()
      req.on('end', () => answer(req, res))
    })
    standIn.listen(Number(port), '127.0.0.1')
    await once(standIn, 'listening')
    try {
      const url = `http://127.0.0.1:${port}`
      answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-svc-hook': '1' }).end('{}')
      const bare = await runShim(url, 'rm -rf /')
      expect(bare).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/no valid svc MAC.*blocked \(fail-closed\)/) })
      answer = (_req, res) => res.writeHead(200, { 'x-svc-hook': '1', 'x-svc-mac': 'f'.repeat(64) }).end('{}')
      expect(await runShim(url, 'rm -rf /')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/no valid svc MAC/) })
      answer = (_req, res) => res.writeHead(200, { 'x-svc-hook': '1', 'x-svc-mac': recorded.mac }).end(recorded.body)
      expect(await runShim(url, 'rm -rf /')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/no valid svc MAC \(not the svc daemon, or a replayed answer\)/) })
    } finally {
      standIn.closeAllConnections()
      standIn.close()
    }
  })
})
