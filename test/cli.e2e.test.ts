/**
 * The real `svc` binary: the daemon as a child process (lifecycle, loopback-only bind, SIGTERM); client
 * commands (sessions, banners, mode, auth) through the same CLI in-process against it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { tempDir } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'

const SVC = join(PROJECT_ROOT, 'cli', 'svc.sh')
// `svc daemon` runs as a child process (runCli spawns it); every other command runs in-process.
const svc = (args: string[], env: NodeJS.ProcessEnv = {}, input = '') => runCli(args, { ...process.env, ...env }, input)

function freePort(): number {
  return 20000 + Math.floor(Math.random() * 20000)
}

describe('svc daemon', () => {
  let child: ChildProcess
  let url: string
  let logs = ''
  const home = tempDir()

  beforeAll(async () => {
    const port = freePort()
    url = `http://127.0.0.1:${port}`
    child = spawn(SVC, ['daemon', '--port', String(port), '--home', home], { env: { ...process.env, SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: 'operator-password' } })
    child.stdout!.on('data', (b) => (logs += b))
    child.stderr!.on('data', (b) => (logs += b))
    await waitFor(async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok, 'the daemon to listen', 20_000)
  })
  afterAll(() => {
    child.kill('SIGKILL')
  })

  it('serves health and writes its state under --home', async () => {
    expect(await (await fetch(`${url}/v1/health`)).json()).toMatchObject({ status: 'ok' })
    expect(existsSync(join(home, 'ledger.db'))).toBe(true)
    expect(logs).toContain('svc daemon listening')
  })

  it('svc session create --tier unattested prints the red banner and a session id', async () => {
    // An unattested session signs nothing: minting one needs operator rights.
    const anonymous = await svc(['session', 'create', '--tier', 'unattested', '--url', url])
    expect(anonymous).toMatchObject({ code: 1, stderr: expect.stringMatching(/unattested session signs nothing, so creating one needs operator rights/) })
    const res = await svc(['session', 'create', '--tier', 'unattested', '--url', url], { SVC_ADMIN_PASSWORD: 'operator-password' })
    expect(res.code).toBe(0)
    expect(res.stderr).toContain('UNATTESTED — LEDGER NOT SIGNED')
    expect(res.stderr, 'no ANSI codes when stderr is not a terminal').not.toContain('\x1b[')
    const coloured = await svc(['session', 'create', '--tier', 'unattested', '--url', url], { FORCE_COLOR: '1', SVC_ADMIN_PASSWORD: 'operator-password' })
    expect(coloured.stderr).toContain('\x1b[1;37;41m UNATTESTED — LEDGER NOT SIGNED')
    expect(JSON.parse(res.stdout)).toMatchObject({ session_id: expect.stringMatching(/^ses_/), signer: 'unattested' })
  })

  it('svc mode reads via SVC_URL and sets with the operator password', async () => {
    expect((await svc(['mode'], { SVC_URL: url })).stdout.trim()).toBe('firewall')
    const refused = await svc(['mode', 'monitor'], { SVC_URL: url, SVC_ADMIN_PASSWORD: '', SVC_TOKEN: '' })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('needs operator rights')
    const wrong = await svc(['mode', 'monitor', '--password-stdin'], { SVC_URL: url }, 'nope\n')
    expect(wrong.stderr).toContain('wrong password')
    const ok = await svc(['mode', 'monitor', '--password-stdin'], { SVC_URL: url }, 'operator-password\n')
    expect(ok.stdout).toContain('firewall -> monitor')
    await svc(['mode', 'firewall', '--password-stdin'], { SVC_URL: url }, 'operator-password\n')
  })

  it('shuts down gracefully on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(logs).toContain('shutting down')
  })
})

describe('svc CLI errors', () => {
  it('refuses a non-loopback bind outside a container', async () => {
    const res = await svc(['daemon', '--host', '0.0.0.0', '--port', String(freePort()), '--home', tempDir()])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('refusing to listen on 0.0.0.0')
  })

  it('names an unreachable daemon', async () => {
    const res = await svc(['session', 'create', '--tier', 'unattested', '--url', 'http://127.0.0.1:9'])
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/cannot reach the svc daemon at http:\/\/127\.0\.0\.1:9/)
  })

  it('rejects a bad port and a bad tier with usage errors', async () => {
    expect((await svc(['daemon', '--port', 'abc'])).stderr).toContain('must be a port number')
    const tier = await svc(['session', 'create', '--tier', 'gold'])
    expect(tier.code).toBe(2)
    expect(tier.stderr).toContain('Allowed choices are unattested, software, totp, os-keychain, hardware-key')
  })

  it('svc auth set-password stores a hash from stdin and refuses a short one', async () => {
    const home = tempDir()
    expect((await svc(['auth', 'set-password', '--home', home], {}, 'short\n')).stderr).toContain('at least 8 characters')
    const ok = await svc(['auth', 'set-password', '--home', home], {}, 'long-enough-password\n')
    expect(ok.code).toBe(0)
    expect(existsSync(join(home, 'auth.json'))).toBe(true)
  })
})
