/** `svc install` / `svc uninstall` / `svc mcp` (the real CLI, in-process) against temp HOME trees and a real daemon. */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli as svc } from './helpers/run-cli.ts'

let daemon: TestDaemon
let home: string
const CLAUDE = '{\n  "model": "opus"\n}\n'

beforeAll(async () => {
  home = tempDir('svc-cli-install-')
  mkdirSync(join(home, '.claude'))
  writeFileSync(join(home, '.claude/settings.json'), CLAUDE)
  daemon = await startTestDaemon({ env: { SVC_USER_HOME: home } })
})
afterAll(async () => {
  await daemon.stop()
})

describe('svc install / uninstall', () => {
  // The session `svc install` mints is unattested by default, which needs operator rights.
  const env = () => ({ HOME: home, SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url, SVC_ADMIN_PASSWORD: 'correct horse battery' })

  it('--dry-run shows the diff and writes nothing', async () => {
    const res = await svc(['install', '--dry-run'], env())
    expect(res.code).toBe(0)
    expect(res.stdout).toContain(`+++ ${join(home, '.claude/settings.json')}\tafter svc`)
    expect(res.stdout).toContain('"PreToolUse": [')
    expect(res.stderr).toContain('skipped gemini: not installed for this user')
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toBe(CLAUDE)
    expect(existsSync(join(home, '.svc'))).toBe(false)
  })

  it('asks before writing and writes nothing on "no"', async () => {
    const res = await svc(['install'], env(), 'n\n')
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('write these changes to 1 file(s)? [y/N]')
    expect(res.stderr).toContain('svc: nothing written')
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toBe(CLAUDE)
  })

  it('installs on "yes", mints a session, and is idempotent', async () => {
    const res = await svc(['install', '--harness', 'claude-code'], env(), 'y\n')
    expect(res.code).toBe(0)
    const minted = /session: (ses_\S+)/.exec(res.stdout)?.[1]
    expect(minted, res.stdout).toBeDefined()
    expect(daemon.engine.sessions.current()?.id).toBe(minted)
    const again = await svc(['install', '--harness', 'claude-code', '--yes'], env())
    expect(again.stdout).toContain('svc hooks are already installed; nothing to change')
    // Install made the hook key the shim checks answers with, private to the user.
    expect(statSync(join(env().SVC_HOME, 'hook.key')).mode & 0o777).toBe(0o600)
    const uninstall = await svc(['uninstall', '--yes'], env())
    expect(uninstall.code).toBe(0)
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toBe(CLAUDE)
  })

  it('without --tier keeps the active session: no unattested banner, no "every hook call is denied"', async () => {
    const active = await daemon.session()
    const res = await svc(['install', '--harness', 'claude-code', '--yes'], env())
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toContain(`session: keeping the active session ${active} (signer unattested); --tier mints a new one`)
    // Install counts the entries as status does.
    const counted = /^ {2}claude-code \(user\) (\S+): (\d+) entries$/m.exec(res.stdout)
    expect(counted, res.stdout).not.toBeNull()
    expect((await svc(['status'], env())).stdout).toContain(`hooks:    claude-code (user) ${counted![1]}: ${counted![2]}/${counted![2]} entries`)
    expect(res.stderr).not.toContain('UNATTESTED')
    expect(res.stderr).not.toContain('every hook call is denied')
    expect(daemon.engine.sessions.current()?.id).toBe(active)
    expect((await svc(['uninstall', '--yes'], env())).code).toBe(0)
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toBe(CLAUDE)
  })

  it('--tier totp shows the diff before it asks for the secrets, and writes nothing without them', async () => {
    const res = await svc(['install', '--harness', 'claude-code', '--tier', 'totp', '--yes'], env())
    expect(res.code).toBe(2)
    expect(res.stdout).toContain(`+++ ${join(home, '.claude/settings.json')}\tafter svc`)
    expect(res.stderr).toContain('--tier totp needs the signer passphrase and a current 6-digit code')
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toBe(CLAUDE)
  })

  it('refuses planned and unknown harnesses and a bad tier clearly', async () => {
    expect(await svc(['install', '--harness', 'windsurf'], env())).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('harness "windsurf" is not yet implemented; supported: claude-code, codex, gemini, cursor'),
    })
    expect((await svc(['install', '--harness', 'vim'], env())).stderr).toContain('unknown harness "vim"')
    expect((await svc(['install', '--tier', 'gold'], env())).code).toBe(2)
  })
})

describe('svc mcp', () => {
  it('lists seen servers and accepts a pin with operator rights', async () => {
    await daemon.request('POST', '/v1/mcp/pin/check', { server: 'docs', identity: { transport: 'http', url: 'http://127.0.0.1:9/mcp', header_names: ['Authorization'] } })
    const list = await svc(['mcp', 'list'], { SVC_URL: daemon.url })
    expect(list.stdout).toMatch(/^docs\thttp\tUNGOVERNED \(seen at run time only, in no harness config svc reads\)\tqueued waiting sha256:[0-9a-f]{64}\tseen at run time$/m)
    const denied = await svc(['mcp', 'pin', 'accept', 'docs'], { SVC_URL: daemon.url })
    expect(denied.stderr).toContain('this needs operator rights')
    expect(denied.stderr).toContain('or pass --password-stdin')
    // A command without --password-stdin never suggests it.
    const revert = await svc(['false-positive', 'revert', '5'], { SVC_URL: daemon.url })
    expect(revert.stderr).toContain('set SVC_ADMIN_PASSWORD (or SVC_TOKEN), or run it in a terminal')
    expect(revert.stderr).not.toContain('--password-stdin')
    const ok = await svc(['mcp', 'pin', 'accept', 'docs'], { SVC_URL: daemon.url, SVC_ADMIN_PASSWORD: 'correct horse battery' })
    expect(ok.stdout).toMatch(/^accepting docs at (sha256:[0-9a-f]{64}) \(from api\); identity: \{"transport":"http"/)
    expect(ok.stdout).toMatch(/^pinned docs at sha256:[0-9a-f]{64}/m)
  })
})
