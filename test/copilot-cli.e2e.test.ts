/**
 * End to end with the real GitHub Copilot CLI (pinned devDependency `@github/copilot`; its native binary comes in
 * the platform package from npm) against a scripted Chat Completions model on loopback. No GitHub account: BYOK
 * (`COPILOT_PROVIDER_BASE_URL`) with `COPILOT_OFFLINE=true`, which keeps it off GitHub's servers. `svc install`
 * writes `~/.copilot/hooks/svc.json`; a denied key read never runs and its reason reaches the model, an allowed
 * echo runs and its outcome links to the decision, an MCP call goes through `svc mcp-proxy`, a project switch is
 * reported, a stopped daemon blocks, and uninstall gives back the user's bytes.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeChat, type FakeChat } from './helpers/fake-openai-chat.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { spawnBounded } from './helpers/spawn-bounded.ts'

const ROOT = new URL('..', import.meta.url).pathname
const COPILOT = join(ROOT, `node_modules/@github/copilot-${process.platform}-${process.arch}/copilot`)
const SETTINGS = '// my Copilot settings\n{\n  "banner": "never"\n}\n'

let daemon: TestDaemon
let model: FakeChat
let home: string
let work: string

const run = (cmd: string, args: string[], env: Record<string, string>) =>
  spawnBounded(cmd, args, { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', ...env } })
const svcEnv = () => ({ SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url, SVC_ADMIN_PASSWORD: 'correct horse battery' })
const svc = (args: string[]) => run(join(ROOT, 'cli/svc.sh'), args, svcEnv())
const copilot = (prompt: string, extra: string[] = []) =>
  run(COPILOT, ['-p', prompt, '--allow-all-tools', '--no-auto-update', ...extra], {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: model.url,
    COPILOT_PROVIDER_API_KEY: 'test-key',
    COPILOT_MODEL: 'gpt-4.1',
  })

describe.skipIf(!existsSync(COPILOT))('GitHub Copilot CLI with svc installed (real binary)', () => {
  beforeAll(async () => {
    home = tempDir('svc-copilot-e2e-')
    work = join(home, 'work')
    mkdirSync(work, { recursive: true })
    mkdirSync(join(home, '.copilot'))
    writeFileSync(join(home, '.copilot/settings.json'), SETTINGS)
    mkdirSync(join(home, '.ssh'))
    writeFileSync(join(home, '.ssh/id_rsa'), 'PRIVATE KEY\n')
    model = await startFakeChat()
    daemon = await startTestDaemon({ home: join(home, '.svc'), env: { SVC_USER_HOME: home } })
    const install = await svc(['install', '--harness', 'copilot-cli', '--yes'])
    expect(install.out).toContain('installed svc hooks for copilot-cli')
    expect(install.code, install.out).toBe(0)
  }, 60_000)

  afterAll(async () => {
    await model?.close()
    await daemon?.stop()
  })

  it('wrote svc’s own hooks file and left the user’s settings alone', () => {
    const hooks = JSON.parse(readFileSync(join(home, '.copilot/hooks/svc.json'), 'utf8'))
    expect(hooks.version).toBe(1)
    expect(hooks.hooks.preToolUse[0].bash).toContain('svc-hook copilot-cli preToolUse')
    expect(readFileSync(join(home, '.copilot/settings.json'), 'utf8')).toBe(SETTINGS)
  })

  it('never runs a denied key read, and the policy reason reaches the model', async () => {
    const marker = join(home, 'denied-marker')
    const before = daemon.engine.ledger.size()
    const res = await copilot(`RUN: touch ${marker}; cat ~/.ssh/id_rsa`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    const seen = model.toolResults.at(-1) ?? ''
    expect(seen).toContain('Denied by preToolUse hook')
    expect(seen).toContain('secrets.ssh-private-key')
    expect(seen).not.toContain('PRIVATE KEY')
    expect(daemon.engine.ledger.get(before)).toMatchObject({ kind: 'decision', source: 'copilot-cli', tool: 'Bash', verdict: 'deny', ruleId: 'secrets.ssh-private-key' })
  }, 120_000)

  it('runs an allowed echo and links its outcome row to the decision', async () => {
    const marker = join(home, 'allowed-marker')
    const before = daemon.engine.ledger.size()
    const res = await copilot(`RUN: echo hello > ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(readFileSync(marker, 'utf8')).toBe('hello\n')
    const decision = daemon.engine.ledger.get(before)
    expect(decision).toMatchObject({ kind: 'decision', source: 'copilot-cli', tool: 'Bash', verdict: 'allow' })
    expect(daemon.engine.ledger.get(before + 1)).toMatchObject({ kind: 'outcome', verdict: 'ran', parentSeq: before, toolUseId: decision!.toolUseId })
    expect(model.requests.every((r) => r === 'POST /v1/chat/completions')).toBe(true)
  }, 120_000)

  it('a trusted project that sets disableAllHooks: the agent cannot write it, svc status says protection is off', async () => {
    const denied = await copilot(`RUN: mkdir -p .github/copilot && echo '{"disableAllHooks":true}' > .github/copilot/settings.json`)
    expect(denied.code, denied.out).toBe(0)
    expect(existsSync(join(work, '.github/copilot/settings.json'))).toBe(false)
    expect(model.toolResults.at(-1)).toContain('self.harness-config')
    mkdirSync(join(work, '.github/copilot'), { recursive: true })
    writeFileSync(join(work, '.github/copilot/settings.json'), '{ "disableAllHooks": true }\n')
    try {
      // Copilot honours it in a trusted folder: the tool runs and svc hears nothing.
      const ran = join(home, 'ungated-marker')
      const before = daemon.engine.ledger.size()
      expect((await copilot(`RUN: touch ${ran}`, ['--trust-folder'])).code).toBe(0)
      expect(existsSync(ran)).toBe(true)
      expect(daemon.engine.ledger.size()).toBe(before)
      const status = await svc(['status'])
      expect(status.code).toBe(1)
      expect(status.out).toContain(`protection is OFF for project ${work}: disableAllHooks: true`)
    } finally {
      rmSync(join(work, '.github'), { recursive: true, force: true })
    }
  }, 180_000)

  it('runs an MCP tool through svc mcp-proxy once its tools are pinned; unwrap gives the bytes back', async () => {
    const config = join(home, '.copilot/mcp-config.json')
    const original = `{\n  // a user MCP server\n  "mcpServers": { "fx": { "type": "local", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(join(ROOT, 'test/fixtures/mcp/server.ts'))}], "env": { "SVC_HOME": ${JSON.stringify(join(home, '.svc'))}, "SVC_URL": ${JSON.stringify(daemon.url)} }, "tools": ["*"] } }\n}\n`
    writeFileSync(config, original)
    try {
      const wrap = await svc(['mcp', 'wrap', '--yes'])
      expect(wrap.out).toContain('wrapped fx')
      await copilot('MCP: fx-echo {"text":"too early"}')
      expect(model.declared.has('fx-echo')).toBe(false)
      const pins = await daemon.request('GET', '/v1/mcp/pins')
      const served = pins.body.servers.find((s: { server: string }) => s.server === 'fx').served_fingerprint
      const accepted = await daemon.request('POST', '/v1/mcp/pin/accept', { server: 'fx', fingerprint: served }, { authorization: `Bearer ${await daemon.operatorToken()}` })
      expect(accepted.status).toBe(200)
      const before = daemon.engine.ledger.size()
      // Copilot caches each server's tool list (~/.cache/copilot/mcp-tools) and a prompt-mode run uses that snapshot
      // while the live connection is still starting: the list from before the pin (none) would be served again.
      rmSync(join(home, '.cache/copilot/mcp-tools'), { recursive: true, force: true })
      const res = await copilot('MCP: fx-echo {"text":"via proxy"}')
      expect(res.code, res.out).toBe(0)
      expect(model.toolResults.at(-1)).toContain('echo: via proxy')
      const rows = Array.from({ length: daemon.engine.ledger.size() - before }, (_, i) => daemon.engine.ledger.get(before + i)!)
      const hook = rows.find((r) => r.kind === 'decision' && r.source === 'copilot-cli' && r.tool === 'mcp__fx__echo')
      expect(hook).toMatchObject({ verdict: 'allow' })
      expect(rows.find((r) => r.kind === 'decision' && r.source === 'mcp-proxy')).toMatchObject({ tool: 'mcp__fx__echo', verdict: 'allow' })
      expect((await svc(['mcp', 'unwrap', '--yes'])).code).toBe(0)
      expect(readFileSync(config, 'utf8')).toBe(original)
    } finally {
      rmSync(config, { force: true })
    }
  }, 180_000)

  it('blocks tool calls when the daemon is stopped (fail closed)', async () => {
    await daemon.stop()
    const marker = join(home, 'daemon-down-marker')
    const res = await copilot(`RUN: touch ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    // The shim exits 2; Copilot reports that exit, not the shim's stderr.
    expect(model.toolResults.at(-1)).toContain('Denied by preToolUse hook')
  }, 120_000)

  it('uninstalls back to the user’s bytes', async () => {
    const res = await run(join(ROOT, 'cli/svc.sh'), ['uninstall', '--yes'], { SVC_HOME: join(home, '.svc') })
    expect(res.code, res.out).toBe(0)
    expect(existsSync(join(home, '.copilot/hooks'))).toBe(false)
    expect(readFileSync(join(home, '.copilot/settings.json'), 'utf8')).toBe(SETTINGS)
  }, 60_000)
})
