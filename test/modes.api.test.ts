/** Daemon mode vs policy mode, monitor-only gates, require_strong, the nudge rule, and sealed disables. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { newSeed } from '../core/ledger/ed25519.ts'

let d: TestDaemon
const home = tempDir()

beforeAll(async () => {
  writeFileSync(
    join(home, 'user-policy.yaml'),
    `version: 1
mode: monitor
gates:
  - id: user.no-sleep
    when: { tool: Bash, command_regex: '^sleep ' }
    nudge: do not wait
  - id: user.watch-curl
    when: { tool: Bash, command_regex: '^curl ' }
    on_hit: monitor
    nudge: never shown
  - id: user.prod-deploy
    when: { tool: Bash, command_regex: '^deployctl .*--context=prod' }
    on_hit: allow
    require_strong: true
    nudge: Production needs a hardware-key session.
`,
  )
  d = await startTestDaemon({ home })
})
afterAll(() => d.stop())

async function login(): Promise<string> {
  const res = await d.request('POST', '/v1/auth/login', { password: 'correct horse battery' })
  expect(res.status).toBe(200)
  return res.body.token
}
const setMode = async (mode: string) => {
  const res = await d.request('PATCH', '/v1/mode', { mode }, { authorization: `Bearer ${await login()}` })
  expect(res.status).toBe(200)
}
const check = async (sid: string, command: string) => (await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'gemini', tool: 'Bash', input: { command } })).body

describe('modes', () => {
  it('firewall (default) turns a policy-level monitor gate back into deny', async () => {
    const sid = await d.session()
    expect((await d.request('GET', '/v1/mode')).body).toEqual({ mode: 'firewall' })
    expect(await check(sid, 'sleep 10')).toMatchObject({ verdict: 'deny', rule_id: 'user.no-sleep', nudge: 'do not wait' })
  })

  it('a monitor-only gate (on_hit: monitor) alerts without denying, and carries no nudge', async () => {
    const sid = await d.session()
    const res = await check(sid, 'curl https://example.com')
    expect(res).toMatchObject({ verdict: 'allow', rule_id: 'user.watch-curl' })
    expect(res.nudge).toBeUndefined()
    expect(d.engine.ledger.get(res.ledger_seq)).toMatchObject({ verdict: 'monitor_alert', monitorMatch: true })
  })

  it('monitor mode suppresses every deny: allow to the harness, monitor_alert in the ledger, nudge dropped', async () => {
    const sid = await d.session()
    await setMode('monitor')
    try {
      const res = await check(sid, 'rm -rf /')
      expect(res).toMatchObject({ verdict: 'allow', rule_id: 'fs.rm-root-or-home' })
      expect(res.nudge).toBeUndefined()
      expect(d.engine.ledger.get(res.ledger_seq)).toMatchObject({ verdict: 'monitor_alert', monitorMatch: true, ruleId: 'fs.rm-root-or-home' })
      expect((await d.request('GET', '/v1/mode')).body.mode).toBe('monitor')
    } finally {
      await setMode('firewall')
    }
  })

  it('the mode survives a daemon restart', async () => {
    const h = tempDir()
    const first = await startTestDaemon({ home: h })
    const token = (await first.request('POST', '/v1/auth/login', { password: 'correct horse battery' })).body.token
    await first.request('PATCH', '/v1/mode', { mode: 'monitor' }, { authorization: `Bearer ${token}` })
    await first.stop()
    const second = await startTestDaemon({ home: h })
    expect((await second.request('GET', '/v1/mode')).body.mode).toBe('monitor')
    await second.stop()
  })
})

describe('require_strong', () => {
  it('denies weak signers even when the gate allows, in every mode; a hardware key passes', async () => {
    for (const signer of ['unattested', 'software', 'totp', 'os_keychain'] as const) {
      const s = d.engine.sessions.create({ signer, ...(signer === 'unattested' ? {} : { seed: newSeed() }) }, Date.now())
      const res = await check(s.id, 'deployctl apply -f x.yaml --context=prod')
      expect(res).toMatchObject({ verdict: 'deny', rule_id: 'user.prod-deploy', nudge: 'Production needs a hardware-key session.' })
      expect(res.reason).toContain(`signed by ${signer}`)
    }
    await setMode('monitor')
    try {
      const s = d.engine.sessions.create({ signer: 'totp', seed: newSeed() }, Date.now())
      expect((await check(s.id, 'deployctl apply --context=prod')).verdict).toBe('deny')
    } finally {
      await setMode('firewall')
    }
    const strong = d.engine.sessions.create({ signer: 'hardware_key', seed: newSeed() }, Date.now())
    expect(await check(strong.id, 'deployctl apply --context=prod')).toMatchObject({ verdict: 'allow', rule_id: 'user.prod-deploy' })
  })
})

describe('disabled gates', () => {
  it('ignores a hand-edited disabled: true (reported), and honours a daemon-sealed replacement', async () => {
    const repo = tempDir('svc-repo-')
    mkdirSync(join(repo, '.git'))
    const sid = await d.session()
    // Hand edit: the agent (or anyone) writes `disabled: true` for a built-in gate.
    writeFileSync(
      join(repo, '.svc.yaml'),
      `version: 1
gates:
  - id: git.reset-hard
    disabled: true
  - id: repo.replacement
    when: { tool: Bash, command_regex: '^git reset --hard origin/' }
`,
    )
    const forged = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git reset --hard HEAD~3' }, cwd: repo })
    expect(forged.body).toMatchObject({ verdict: 'deny', rule_id: 'git.reset-hard' })

    const facts = {
      gate_id: 'git.reset-hard',
      file: join(repo, '.svc.yaml'),
      event_seq: 7,
      at: '2026-11-21T10:00:00Z',
      replacement_id: 'repo.replacement',
      note: 'allow resets to HEAD only',
    }
    const seal = d.engine.sealer.seal(facts)
    writeFileSync(
      join(repo, '.svc.yaml'),
      `version: 1
gates:
  - id: git.reset-hard
    disabled: true
    disabled_by: { event_seq: 7, at: '2026-11-21T10:00:00Z', replacement_id: repo.replacement, note: allow resets to HEAD only, seal: ${seal} }
  - id: repo.replacement
    when: { tool: Bash, command_regex: '^git reset --hard origin/' }
`,
    )
    await new Promise((r) => setTimeout(r, 1100)) // repo files are re-checked at most once a second
    const allowed = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git reset --hard HEAD~3' }, cwd: repo })
    expect(allowed.body.verdict).toBe('allow')
    const still = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git reset --hard origin/main' }, cwd: repo })
    expect(still.body).toMatchObject({ verdict: 'deny', rule_id: 'repo.replacement' })
    // Elsewhere the built-in gate still holds.
    // The same sealed text copied into another repo does not disable anything there.
    const other = tempDir('svc-repo-')
    mkdirSync(join(other, '.git'))
    writeFileSync(join(other, '.svc.yaml'), readFileSync(join(repo, '.svc.yaml')))
    const copied = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git reset --hard HEAD~3' }, cwd: other })
    expect(copied.body.rule_id).toBe('git.reset-hard')
    const elsewhere = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'codex', tool: 'Bash', input: { command: 'git reset --hard HEAD~3' }, cwd: tempDir() })
    expect(elsewhere.body.rule_id).toBe('git.reset-hard')
  })

  it('reports an unsealed disable in the policy view and keeps the gate active', async () => {
    writeFileSync(
      join(home, 'policy.yaml'),
      `version: 1
gates:
  - id: local.no-cowsay
    disabled: true
    when: { tool: Bash, command_regex: '^cowsay' }
`,
    )
    d.engine.policy.refresh(Date.now())
    const view = await d.request('GET', '/v1/policy/view')
    expect(view.body.warnings).toContainEqual(expect.objectContaining({ gate_id: 'local.no-cowsay', message: expect.stringContaining('stays active') }))
    const sid = await d.session()
    expect((await check(sid, 'cowsay moo')).rule_id).toBe('local.no-cowsay')
  })
})
