/**
 * `$SVC_PORTS` end to end: a real `svc daemon --port N` on a non-default port denies tool calls that reach N
 * (and the ports its operator declared), allows unrelated local ports; an in-process daemon on an ephemeral
 * port binds the port listen() picked; `svc explain` binds the same set without a daemon; bad input is refused.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'

/** A port nothing listens on right now (the kernel picks it; we release it for the daemon). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function check(url: string, session: string, command: string): Promise<{ verdict: string; rule_id: string; reason: string }> {
  const res = await fetch(`${url}/v1/gates/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session, source: 'test', tool: 'Bash', input: { command }, cwd: '/tmp' }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as { verdict: string; rule_id: string; reason: string }
}

describe('svc daemon --port N (a real child process)', () => {
  let child: ChildProcess
  let port: number
  let url: string
  let session: string
  let logs = ''

  beforeAll(async () => {
    port = await freePort()
    url = `http://127.0.0.1:${port}`
    const env = {
      PATH: process.env.PATH,
      HOME: tempDir('svc-ports-user-'),
      SVC_ALLOW_UNATTESTED: '1',
      SVC_ADMIN_PASSWORD: 'operator-password',
      SVC_PROTECTED_PORTS: '17878, 17879',
    }
    child = spawn(join(import.meta.dirname, '..', 'cli', 'svc.sh'), ['daemon', '--port', String(port), '--home', tempDir('svc-ports-home-')], { env })
    child.stdout!.on('data', (b) => (logs += b))
    child.stderr!.on('data', (b) => (logs += b))
    await waitFor(async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok, 'the daemon to listen', 20_000)
    const login = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'operator-password' }) })
    const { token } = (await login.json()) as { token: string }
    const res = await fetch(`${url}/v1/sessions/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ signer: 'unattested' }),
    })
    session = ((await res.json()) as { session_id: string }).session_id
  })
  afterAll(() => {
    child?.kill('SIGKILL')
  })

  it('denies reaching its own port under any spelling, and logs what it protects', async () => {
    expect(port).not.toBe(7878)
    for (const command of [
      `curl http://127.1:${port}/v1/mode`,
      `curl -X PATCH localhost:${port}/v1/mode -d '{"mode":"monitor"}'`,
      `nc 127.0.0.1 ${port}`,
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}))"`,
    ]) {
      const r = await check(url, session, command)
      expect(r, command).toMatchObject({ verdict: 'deny', rule_id: 'self.daemon-ports' })
    }
    expect(logs).toMatch(new RegExp(`"protected_ports":\\[[0-9,]*\\b${port}\\b`))
  })

  it('denies the declared host ports and the defaults, allows unrelated local ports', async () => {
    expect(await check(url, session, 'curl http://localhost:17879/v1/health')).toMatchObject({ verdict: 'deny', rule_id: 'self.daemon-ports' })
    expect(await check(url, session, 'curl http://127.0.0.1:7878/v1/mode')).toMatchObject({ verdict: 'deny', rule_id: 'self.daemon-ports' })
    for (const command of ['curl localhost:3000', 'npm run dev -- --port 5173', `curl http://127.0.0.1:${port + 1}/`]) {
      expect(await check(url, session, command), command).toMatchObject({ verdict: 'allow' })
    }
  })
})

describe('in-process daemon on an ephemeral port', () => {
  it('binds the port listen() picked', async () => {
    const daemon = await startTestDaemon()
    try {
      const port = Number(new URL(daemon.url).port)
      expect(daemon.engine.svcPorts()).toEqual(expect.arrayContaining([7878, 7879, port]))
      const session = await daemon.session()
      expect(await check(daemon.url, session, `curl http://127.1:${port}/v1/mode`)).toMatchObject({ verdict: 'deny', rule_id: 'self.daemon-ports' })
    } finally {
      await daemon.stop()
    }
  })
})

describe('bad SVC_PROTECTED_PORTS and misspelt bindings', () => {
  it('the daemon refuses to start on a malformed SVC_PROTECTED_PORTS', async () => {
    const r = await runCli(['daemon', '--port', '0', '--home', tempDir('svc-ports-bad-')], { SVC_PROTECTED_PORTS: '17878,1787x' })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('SVC_PROTECTED_PORTS: "1787x" is not a port number')
  })

  it('a policy naming $SVC_PORT (no S) is a load error naming the file and the gate', async () => {
    const home = tempDir('svc-ports-typo-')
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\ngates:\n  - id: team.api\n    when: { url: { port: $SVC_PORT } }\n    on_hit: deny\n')
    await expect(startTestDaemon({ home })).rejects.toThrow(/gate "team\.api": when\.url\.port must match pattern "\^\\\$SVC_PORTS\$"/)
    writeFileSync(join(home, 'policy.yaml'), "version: 1\ngates:\n  - id: team.args\n    when: { command: { program: curl, args_any: ['*:$SVC_PORT'] } }\n    on_hit: deny\n")
    const r = await runCli(['explain', 'ls'], { SVC_HOME: home })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/policy\.yaml:\d+:\d+ gate "team\.args": .*unknown binding "\$SVC_PORT"/)
  })
})

describe('svc explain binds $SVC_PORTS like a daemon', () => {
  const env = (extra: NodeJS.ProcessEnv) => ({ SVC_HOME: tempDir('svc-ports-explain-'), HOME: tempDir('svc-ports-explain-user-'), ...extra })

  it('from SVC_PROTECTED_PORTS and the SVC_URL port, keeping 7878/7879', async () => {
    const plain = await runCli(['explain', 'curl localhost:9000/v1/mode', '--json'], env({}))
    expect(plain.code, plain.stderr).toBe(0)
    expect(JSON.parse(plain.stdout)).toMatchObject({ svc_ports: [7878, 7879], decision: { verdict: 'allow' } })
    const declared = await runCli(['explain', 'curl localhost:9000/v1/mode', '--json'], env({ SVC_PROTECTED_PORTS: '9000' }))
    expect(JSON.parse(declared.stdout)).toMatchObject({ svc_ports: [7878, 7879, 9000], decision: { verdict: 'deny', rule_id: 'self.daemon-ports' } })
    const viaUrl = await runCli(['explain', 'curl localhost:9000/v1/mode'], env({ SVC_URL: 'http://127.0.0.1:9000' }))
    expect(viaUrl.stdout).toContain('$SVC_PORTS: 7878,7879,9000')
    expect(viaUrl.stdout).toContain('verdict: DENY (deny) rule self.daemon-ports')
  })

  it('refuses a malformed SVC_PROTECTED_PORTS with the usage exit code', async () => {
    const r = await runCli(['explain', 'ls'], env({ SVC_PROTECTED_PORTS: 'http://x:1' }))
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('SVC_PROTECTED_PORTS: "http://x:1" is not a port number')
  })
})
