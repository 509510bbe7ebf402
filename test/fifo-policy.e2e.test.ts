/**
 * A FIFO named `.svc.yaml` (or `.mcp.json`) in a directory a call touches used to hang the daemon in
 * `open()`. Files svc did not write are read only when they are regular files of bounded size, without
 * blocking; anything else is a policy error with a reason. Through the real daemon, with real FIFOs.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let daemon: TestDaemon
let repo: string
let session: string

beforeAll(async () => {
  repo = tempDir('svc-fifo-repo-')
  mkdirSync(join(repo, '.git'))
  execFileSync('mkfifo', [join(repo, '.svc.yaml')])
  execFileSync('mkfifo', [join(repo, '.mcp.json')])
  daemon = await startTestDaemon()
  session = await daemon.session()
})
afterAll(async () => {
  await daemon.stop()
  rmSync(repo, { recursive: true, force: true })
})

async function check(input: Record<string, unknown>, tool = 'Read') {
  const res = await fetch(`${daemon.url}/v1/gates/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session, source: 'claude-code', tool, input, cwd: repo }),
    // A hang is the failure this test exists for: bound it well below the test timeout.
    signal: AbortSignal.timeout(8000),
  })
  return (await res.json()) as any
}

describe('non-regular policy and config files', () => {
  it('answers calls in a repository whose .svc.yaml is a FIFO, and reports the file as a policy error', async () => {
    expect(await check({ file_path: join(repo, 'README.md') })).toMatchObject({ verdict: 'allow' })
    expect(await check({ command: `cat ${join(repo, 'x')}` }, 'Bash')).toMatchObject({ verdict: 'allow' })
    const view = (await daemon.request('GET', `/v1/policy/view?cwd=${encodeURIComponent(repo)}`)).body
    expect(view.status).toBe('degraded')
    expect(view.files.find((f: { layer: string }) => f.layer === 'repo')).toMatchObject({
      status: 'error',
      error: { message: expect.stringMatching(/\.svc\.yaml is a FIFO \(named pipe\), not a regular file/) },
    })
    expect((await daemon.request('GET', '/v1/health')).status).toBe(200)
  })

  it('answers an MCP call whose repository .mcp.json is a FIFO (the server counts as unconfigured)', async () => {
    const res = await check({ path: '/tmp/x' }, 'mcp__github__get_file')
    expect(res.verdict).toBe('deny')
    expect(res.reason).toMatch(/not pinned/)
  })

  it('refuses an oversized policy file with its size, keeping the daemon serving', async () => {
    const big = tempDir('svc-big-repo-')
    mkdirSync(join(big, '.git'))
    writeFileSync(join(big, '.svc.yaml'), '')
    truncateSync(join(big, '.svc.yaml'), 5 * 1024 * 1024)
    const view = (await daemon.request('GET', `/v1/policy/view?cwd=${encodeURIComponent(big)}`)).body
    expect(view.files.find((f: { layer: string }) => f.layer === 'repo').error.message).toMatch(/is 5242880 bytes, more than the 4194304-byte limit/)
    rmSync(big, { recursive: true, force: true })
  })
})
