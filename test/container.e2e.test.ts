/**
 * The container path without a Docker engine (none runs on the test machine): the image's command is
 * `node cli/bin.js daemon --host 0.0.0.0` with SVC_IN_CONTAINER=1 and SVC_HOME=/data; here the same daemon
 * runs in a child process with a separate "container" home, and a host `svc` with its own home mints a session
 * on it after handing over its public keys the way docs/operations.md's `docker run -e SVC_TRUSTED_HOST_KEYS=…` does.
 * The image itself, its published ports and its non-root user are run by a real engine in test/container-engine.e2e.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { trustKeysFromEnv, parseTrustedHostKeys } from '../cli/daemon/trust-env.ts'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { readTrustedHostKeys, trustHostKey } from '../core/trust/host-keys.ts'
import { tempDir } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'
import { compileCache } from './helpers/child-env.ts'

const dirs: string[] = []
const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) c.kill('SIGKILL')
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('the container daemon and a host svc', () => {
  it('the image runs bin.js as the daemon with SVC_HOME=/data, without the optional node package, and names its commit when built with it', () => {
    const docker = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8')
    expect(docker).toContain('CMD ["node", "--max-semi-space-size=4", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering", "cli/bin.js", "daemon", "--host", "0.0.0.0"]')
    expect(docker).toMatch(/SVC_HOME=\/data[\s\\]+SVC_IN_CONTAINER=1/)
    expect(docker).toMatch(/MALLOC_ARENA_MAX=2[\s\\]+MALLOC_TRIM_THRESHOLD_=131072/) // what cli/svc.sh gives the daemon
    expect(docker).toContain('npm ci --omit=dev --omit=optional')
    expect(docker).toContain('ARG SVC_COMMIT')
    const operations = readFileSync(join(PROJECT_ROOT, 'docs', 'operations.md'), 'utf8')
    expect(operations).toContain('-e SVC_TRUSTED_HOST_KEYS="$(svc signer export-trust)"')
  })

  it('SVC_TRUSTED_HOST_KEYS from `svc signer export-trust` lets the host mint on the daemon with no file edited by hand', async () => {
    const host = tempDir('svc-host-')
    const data = tempDir('svc-data-')
    dirs.push(host, data)
    const hostEnv = { HOME: host, SVC_HOME: host, SVC_ALLOW_SOFTWARE_SIGNER: '1' }
    expect((await runCli(['signer', 'enroll', '--tier', 'software'], hostEnv)).code).toBe(0)
    const exported = await runCli(['signer', 'export-trust'], hostEnv)
    expect(exported.stdout).toMatch(/^software:[A-Za-z0-9+/]{43}=\n$/)

    const port = 20000 + Math.floor(Math.random() * 20000)
    const containerEnv = {
      PATH: process.env.PATH,
      ...compileCache(),
      HOME: data,
      SVC_HOME: data,
      SVC_IN_CONTAINER: '1',
      SVC_ALLOW_SOFTWARE_SIGNER: '1',
      SVC_TRUSTED_HOST_KEYS: exported.stdout.trim(),
    }
    const daemon = spawn(process.execPath, [join(PROJECT_ROOT, 'cli', 'bin.js'), 'daemon', '--host', '127.0.0.1', '--port', String(port)], {
      cwd: PROJECT_ROOT,
      env: containerEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(daemon)
    let logs = ''
    daemon.stdout!.on('data', (d: Buffer) => (logs += d.toString()))
    const url = `http://127.0.0.1:${port}`
    await waitFor(async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok, 'the container daemon', 20_000)
    expect(JSON.parse(logs.split('\n').find((l) => l.includes('trusted host keys'))!)).toMatchObject({ msg: 'trusted host keys from SVC_TRUSTED_HOST_KEYS', added: 1 })
    expect(logs, 'JSON logs when stdout is not a terminal').not.toContain('\x1b[')

    const minted = await runCli(['session', 'create', '--tier', 'software', '--url', url], hostEnv)
    expect(minted.code, minted.stderr).toBe(0)
    expect(JSON.parse(minted.stdout)).toMatchObject({ signer: 'software', state: 'active' })
    // The host's long-lived key stayed on the host: the container's home holds public keys only.
    expect(readTrustedHostKeys(data).map((k) => k.public_key)).toEqual(readTrustedHostKeys(host).map((k) => k.public_key))
    expect(readFileSync(join(data, 'trusted-host-keys.json'), 'utf8')).not.toContain('PRIVATE')
  })

  it('a malformed SVC_TRUSTED_HOST_KEYS stops the daemon with the reason; a retired key is not trusted again', async () => {
    const data = tempDir('svc-data-')
    dirs.push(data)
    const bad = await runCli(['daemon', '--port', '0', '--home', data], { SVC_TRUSTED_HOST_KEYS: 'software:not-a-key' })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('SVC_TRUSTED_HOST_KEYS: "software:not-a-key" does not carry a base64 32-byte Ed25519 public key')
    expect(() => parseTrustedHostKeys('unattested:AAAA')).toThrow(/is not <signer>:<base64 public key>/)

    const key = Buffer.alloc(32, 7)
    trustHostKey(data, key, 'software', 'old', { now: 1 })
    trustHostKey(data, Buffer.alloc(32, 8), 'software', 'new', { replaceKind: true, now: 2 })
    expect(trustKeysFromEnv(data, { SVC_TRUSTED_HOST_KEYS: `software:${key.toString('base64')}` })).toBe(0)
    expect(readTrustedHostKeys(data).find((k) => k.public_key === key.toString('base64'))?.retired_at_ms).toBe(2)
  })
})
