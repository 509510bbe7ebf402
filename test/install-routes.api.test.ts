import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let daemon: TestDaemon
let home: string
let auth: Record<string, string>
const CURSOR_HOOKS = '{\n  "version": 1,\n  // mine\n  "hooks": { "stop": [ { "command": "./notify.sh" } ] }\n}\n'

beforeAll(async () => {
  home = tempDir('svc-install-routes-')
  mkdirSync(join(home, '.cursor'), { recursive: true })
  writeFileSync(join(home, '.cursor/hooks.json'), CURSOR_HOOKS)
  daemon = await startTestDaemon({ env: { SVC_USER_HOME: home } })
  const token = (await daemon.request('POST', '/v1/auth/login', { password: 'correct horse battery' })).body.token
  auth = { authorization: `Bearer ${token}` }
})
afterAll(async () => {
  await daemon.stop()
})

describe('install API', () => {
  it('needs an operator token', async () => {
    expect((await daemon.request('POST', '/v1/install/plan', {})).status).toBe(401)
    expect((await daemon.request('POST', '/v1/uninstall', {})).status).toBe(401)
  })

  it('plans a diff for detected harnesses, applies it by token once, and uninstalls byte for byte', async () => {
    const plan = await daemon.request('POST', '/v1/install/plan', {}, auth)
    expect(plan.status).toBe(200)
    expect(plan.body.files).toEqual([expect.objectContaining({ path: join(home, '.cursor/hooks.json'), harnesses: ['cursor'], action: 'modify' })])
    expect(plan.body.files[0].diff).toContain(`"preToolUse": [ { "command": "${daemon.home}/bin/svc-hook cursor preToolUse --url=${daemon.url} --svc-install=`)
    expect(plan.body.skipped.map((s: { harness: string }) => s.harness)).toEqual(['claude-code', 'codex', 'gemini', 'copilot-cli', 'opencode'])
    const apply = await daemon.request('POST', '/v1/install/apply', { token: plan.body.token }, auth)
    expect(apply.body).toMatchObject({ applied: true, token: plan.body.token })
    const installed = readFileSync(join(home, '.cursor/hooks.json'), 'utf8')
    expect(installed).toContain('// mine')
    expect(JSON.parse(installed.replace('// mine', '')).hooks.stop).toEqual([{ command: './notify.sh' }])
    const again = await daemon.request('POST', '/v1/install/apply', { token: plan.body.token }, auth)
    expect(again.body).toMatchObject({ applied: false, files: [] })
    expect(readFileSync(join(home, '.cursor/hooks.json'), 'utf8')).toBe(installed)

    const un = await daemon.request('POST', '/v1/uninstall', {}, auth)
    expect(un.body).toMatchObject({ applied: true, warnings: [] })
    expect(readFileSync(join(home, '.cursor/hooks.json'), 'utf8')).toBe(CURSOR_HOOKS)
    // Each applied change is on the record (who, which harnesses, which plan); the no-op re-apply is not.
    const events = (await daemon.request('GET', '/v1/ledger/entries?limit=1000')).body.entries.map((e: { leaf: any }) => e.leaf).filter((l: any) => l.type === 'control')
    expect(events).toEqual([
      expect.objectContaining({ verdict: 'hooks_installed', facts: { who: expect.stringMatching(/^operator:/), harnesses: 'cursor', plan: plan.body.token } }),
      expect.objectContaining({ verdict: 'hooks_uninstalled', facts: expect.objectContaining({ harnesses: expect.stringContaining('cursor') }) }),
    ])
  })

  it('answers 409 when the files changed since the plan', async () => {
    const plan = await daemon.request('POST', '/v1/install/plan', { harnesses: ['cursor'] }, auth)
    writeFileSync(join(home, '.cursor/hooks.json'), CURSOR_HOOKS.replace('notify', 'notify2'))
    const apply = await daemon.request('POST', '/v1/install/apply', { harnesses: ['cursor'], token: plan.body.token }, auth)
    expect(apply.body).toMatchObject({ status: 409, code: 'conflict' })
    expect(readFileSync(join(home, '.cursor/hooks.json'), 'utf8')).toBe(CURSOR_HOOKS.replace('notify', 'notify2'))
  })

  it('says "not yet implemented" for planned harnesses and names the supported ones for unknown ids', async () => {
    expect((await daemon.request('POST', '/v1/install/plan', { harnesses: ['windsurf'] }, auth)).body).toMatchObject({
      status: 501,
      code: 'not_implemented',
      detail: 'harness "windsurf" is not yet implemented; supported: claude-code, codex, gemini, cursor, copilot-cli, opencode',
    })
    expect((await daemon.request('POST', '/v1/install/plan', { harnesses: ['emacs'] }, auth)).body).toMatchObject({
      status: 400,
      detail: expect.stringContaining('unknown harness "emacs"'),
    })
    expect((await daemon.request('POST', '/v1/install/plan', { scope: 'repo' }, auth)).body).toMatchObject({ status: 400, detail: expect.stringContaining('needs "repo"') })
    writeFileSync(join(home, '.cursor/hooks.json'), '{ "hooks": ')
    expect((await daemon.request('POST', '/v1/install/plan', { harnesses: ['cursor'] }, auth)).body).toMatchObject({
      status: 422,
      detail: expect.stringContaining('is not valid JSON'),
    })
  })
})
