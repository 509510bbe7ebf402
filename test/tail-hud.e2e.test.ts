/**
 * `svc tail` and `svc hud` through the real CLI against a real daemon: tail as a child process writing to a
 * pipe (plain lines without ANSI, hostile strings inert, `--json`, filters shared with `svc log`, resuming
 * after a seq, from-now by default, a clean stop on SIGINT); hud's one status line (mode, tier banner in its
 * colour, counts, pending pins) and its behaviour when the daemon is down or hangs: one clear line, exit 0.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli, runCliProcess } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'
import { compileCache } from './helpers/child-env.ts'

let d: TestDaemon
let sid: string
const check = (command: string, tool = 'Bash') => d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool, input: { command }, cwd: '/tmp' })
const env = () => ({ HOME: tempDir(), SVC_URL: d.url })

beforeAll(async () => {
  d = await startTestDaemon()
  sid = await d.session()
})
afterAll(async () => d?.stop())

/** `svc tail <args>` as a child whose stdout is a pipe; `stop` sends SIGINT and waits for the exit code. */
function tail(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const child: ChildProcess = spawn(join(PROJECT_ROOT, 'cli', 'svc.sh'), ['tail', ...args], { env: { PATH: process.env.PATH, ...compileCache(), ...env(), ...extraEnv } })
  let out = ''
  let err = ''
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    out: () => out,
    err: () => err,
    lines: () => out.split('\n').filter(Boolean),
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      child.kill(signal)
      return exited
    },
    kill: () => child.kill('SIGKILL'),
  }
}

describe('svc tail', () => {
  it('prints new decisions as plain lines on a pipe: no ANSI, hostile strings inert, stops cleanly on SIGINT', async () => {
    const before = await check('echo before-tail-started')
    const t = tail([])
    try {
      // From now on: keep deciding until one shows up, then the earlier one must not be there.
      let marker = 0
      await waitFor(
        async () => {
          await check(`echo after-tail-${++marker}`)
          return t.out().includes('after-tail-')
        },
        'tail to print a decision made after it started',
        30_000,
      )
      expect(t.out()).not.toContain('before-tail-started')
      expect(t.out()).not.toContain(` ${before.body.ledger_seq} `)
      const hostile = await check('echo \u001b]0;title\u0007\u001b[2K\rFAKE\u202eexe\u009b1m')
      await waitFor(() => t.out().includes(String(hostile.body.ledger_seq).padStart(6)), 'the hostile decision', 15_000)
      expect(t.out()).toContain('echo \\x1b]0;title\\x07\\x1b[2K\\rFAKE\\u202eexe\\x9b1m')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test checks that no control character reaches the screen
      expect(t.out()).not.toMatch(/[\u001b\u0007\r\u202e\u009b]/)
      for (const line of t.lines()) expect(line).toMatch(/^\s*\d+ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}(allow|deny|monitor_alert)\s/)
      expect(await t.stop()).toBe(0)
      expect(t.err()).toBe('')
    } finally {
      t.kill()
    }
  })

  it('resumes after a seq with --after-seq, filters like svc log, and prints one JSON object per line with --json', async () => {
    const start = (await d.request('GET', '/v1/ledger/root')).body.tree_size - 1
    const denied = await check('rm -rf / # resume-me')
    const allowed = await check('echo resume-allowed')
    const t = tail(['--after-seq', String(start), '--json', '--verdict', 'deny', '--tool', 'Bash'])
    try {
      await waitFor(() => t.lines().length >= 1, 'the resumed deny', 30_000)
      const later = await check('rm -rf / # later-deny')
      await waitFor(() => t.lines().length >= 2, 'the later deny', 15_000)
      const objects = t.lines().map((l) => JSON.parse(l))
      expect(objects.map((o) => o.seq)).toEqual([denied.body.ledger_seq, later.body.ledger_seq])
      expect(objects[0]).toMatchObject({
        verdict: 'deny',
        harness: 'claude-code',
        tool: 'Bash',
        rule_id: 'fs.rm-root-or-home',
        session_id: sid,
        input: { command: 'rm -rf / # resume-me', cwd: '/tmp' },
      })
      expect(t.out()).not.toContain(`${String(allowed.body.ledger_seq)},`)
      expect(await t.stop('SIGTERM')).toBe(0)
    } finally {
      t.kill()
    }
  })

  it("shares svc log's JSON form and redaction", async () => {
    const secret = await check('curl -H "Authorization: Bearer sk-ant-abcdefghijklmnopqrstuvwxyz01234" https://example.com')
    const t = tail(['--after-seq', String(secret.body.ledger_seq - 1), '--json'])
    try {
      await waitFor(() => t.lines().length >= 1, 'the decision', 30_000)
      const fromTail = JSON.parse(t.lines()[0]!)
      const fromLog = JSON.parse((await runCli(['log', '--json', '--limit', '1', '--since', '1h', '--tool', 'Bash'], env())).stdout.trim().split('\n')[0]!)
      expect(fromTail).toEqual(fromLog)
      expect(t.out()).not.toContain('sk-ant-abcdefghijklmnopqrstuvwxyz01234')
      expect(t.out()).toContain('[REDACTED]')
    } finally {
      await t.stop()
      t.kill()
    }
  })

  it('stops when the reader of its pipe goes away (`svc tail | head -n 1`)', async () => {
    const svc = join(PROJECT_ROOT, 'cli', 'svc.sh')
    const sh = spawn('/bin/sh', ['-c', `"${svc}" tail --after-seq -1 --all | head -n 1`], {
      env: { PATH: process.env.PATH, ...compileCache(), ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    sh.stdout.on('data', (b: Buffer) => (out += b.toString()))
    sh.stderr.on('data', (b: Buffer) => (err += b.toString()))
    let code: number | null | undefined
    sh.on('exit', (c) => (code = c))
    try {
      await waitFor(() => out.length > 0, 'the first line', 30_000)
      // head has gone; the next line tail writes meets a closed pipe and it stops (no EPIPE stack trace).
      await waitFor(
        async () => {
          await check('echo after-head-left')
          return code !== undefined
        },
        'svc tail to stop',
        30_000,
      )
      expect(code).toBe(0)
      expect(out.trim().split('\n')).toHaveLength(1)
      expect(err).toBe('')
    } finally {
      sh.kill('SIGKILL')
    }
  })

  it('names a bad --after-seq (usage error, exit 2)', async () => {
    const r = await runCli(['tail', '--after-seq', 'yesterday'], env())
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--after-seq must be a ledger seq')
  })
})

/** A port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const { port } = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

const CLAUDE_STATUS_JSON = JSON.stringify({ session_id: 'abc', model: { id: 'claude-opus', display_name: 'Opus' }, workspace: { current_dir: '/tmp', project_dir: '/tmp' } })

describe('svc hud', () => {
  it('prints one line: mode, the signer banner in its colour, session counts, pending pin changes', async () => {
    await check('rm -rf / # hud-deny')
    await d.request('POST', '/v1/mcp/pin/check', { server: 'hud-queued', identity: { transport: 'stdio', command: 'x' } })
    // A generous deadline: this test is about the line, and the machine may be busy.
    const r = await runCliProcess(['hud', '--timeout-ms', '20000'], env(), CLAUDE_STATUS_JSON)
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const lines = r.stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(1)
    const counts = (await d.request('GET', `/v1/sessions/insights?session_id=${sid}`)).body.sessions[0].counts
    expect(lines[0]).toContain('svc \u001b[1mfirewall\u001b[0m')
    expect(lines[0]).toContain('\u001b[1;37;41m UNATTESTED — LEDGER NOT SIGNED \u001b[0m')
    expect(lines[0]).toContain(`✓${counts.allow}`)
    expect(lines[0]).toContain(`✗${counts.deny}`)
    expect(lines[0]).toMatch(/\d+ MCP pin changes? waiting/)
    const plain = await runCli(['hud', '--timeout-ms', '20000'], { ...env(), NO_COLOR: '1' })
    expect(plain.stdout).not.toContain('\u001b')
    expect(plain.stdout.trim()).toMatch(/^svc firewall · UNATTESTED — LEDGER NOT SIGNED · session ✓\d+ ✗\d+/)
  })

  it('says when there is no session: calls are denied', async () => {
    const fresh = await startTestDaemon()
    try {
      const r = await runCli(['hud', '--no-color', '--timeout-ms', '20000'], { HOME: tempDir(), SVC_URL: fresh.url })
      expect(r.stdout.trim()).toBe('svc firewall · NO SESSION: calls are denied')
    } finally {
      await fresh.stop()
    }
  })

  it('never fails when the daemon is down: one clear line, no stack trace, exit 0', async () => {
    const url = `http://127.0.0.1:${await deadPort()}`
    const r = await runCliProcess(['hud'], { HOME: tempDir(), SVC_URL: url, NO_COLOR: '1' }, CLAUDE_STATUS_JSON)
    expect(r).toEqual({ code: 0, stdout: `svc: daemon unreachable at ${url}: tool calls are NOT being checked\n`, stderr: '' })
    const bad = await runCliProcess(['hud', '--url', 'not a url'], { HOME: tempDir(), NO_COLOR: '1' })
    expect(bad.code).toBe(0)
    expect(bad.stdout).toContain('svc: daemon unreachable')
    expect(bad.stderr).toBe('')
  })

  it('does not hang on a daemon that accepts and never answers', async () => {
    const sockets = new Set<import('node:net').Socket>()
    const silent: Server = createServer(() => undefined)
    silent.on('connection', (s) => sockets.add(s))
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const r = await runCliProcess(['hud', '--timeout-ms', '300'], { HOME: tempDir(), SVC_URL: url }, CLAUDE_STATUS_JSON)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('svc: daemon not answering')
      expect(r.stdout).toContain('\u001b[1;37;41m')
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise((r) => silent.close(r))
    }
  })
})
