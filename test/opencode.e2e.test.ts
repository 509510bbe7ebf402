/**
 * End to end with the real OpenCode (pinned devDependency `opencode-ai`; its binary comes in the platform package
 * from npm) against a scripted Chat Completions model on loopback, configured as an `@ai-sdk/openai-compatible`
 * provider (bundled in the binary) in the user's opencode.jsonc. `svc install` adds svc's plugin to that file;
 * a denied key read never runs and its reason reaches the model, an allowed echo runs and its outcome links to
 * the decision by OpenCode's own call id, a stopped daemon blocks, and uninstall gives back the user's bytes.
 * OpenCode installs `@opencode-ai/plugin` into its config directory in the background at start: npm is pointed
 * at a dead loopback registry in offline mode, so that install fails at once (a logged warning) and nothing
 * leaves the machine.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeChat, type FakeChat } from './helpers/fake-openai-chat.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { spawnBounded } from './helpers/spawn-bounded.ts'

const ROOT = new URL('..', import.meta.url).pathname
const OPENCODE = join(ROOT, `node_modules/opencode-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}/bin/opencode`)

let daemon: TestDaemon
let model: FakeChat
let home: string
let work: string
let config: string
let original: string

const run = (cmd: string, args: string[], env: Record<string, string>, timeoutMs = 150_000) =>
  spawnBounded(cmd, args, { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', ...env }, timeoutMs })
const svc = (args: string[]) => run(join(ROOT, 'cli/svc.sh'), args, { SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url, SVC_ADMIN_PASSWORD: 'correct horse battery' })
const opencode = (prompt: string) =>
  run(OPENCODE, ['run', prompt], {
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_offline: 'true',
  })

describe.skipIf(!existsSync(OPENCODE))('OpenCode with svc installed (real binary)', () => {
  beforeAll(async () => {
    home = tempDir('svc-opencode-e2e-')
    work = join(home, 'work')
    mkdirSync(work, { recursive: true })
    mkdirSync(join(home, '.ssh'))
    writeFileSync(join(home, '.ssh/id_rsa'), 'PRIVATE KEY\n')
    model = await startFakeChat()
    mkdirSync(join(home, '.config/opencode'), { recursive: true })
    config = join(home, '.config/opencode/opencode.jsonc')
    const provider = {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted',
        options: { baseURL: model.url, apiKey: 'test-key' },
        models: { 'test-model': { name: 'Test', tool_call: true } },
      },
    }
    original = `// my OpenCode config\n{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "fake/test-model", // the scripted model\n  "provider": ${JSON.stringify(provider)},\n  "autoupdate": false\n}\n`
    writeFileSync(config, original)
    daemon = await startTestDaemon({ home: join(home, '.svc'), env: { SVC_USER_HOME: home } })
    const install = await svc(['install', '--harness', 'opencode', '--yes'])
    expect(install.out).toContain('installed svc hooks for opencode')
    expect(install.code, install.out).toBe(0)
  }, 60_000)

  afterAll(async () => {
    await model?.close()
    await daemon?.stop()
  })

  it('added svc’s plugin to the user’s config, keeping its comments', () => {
    const text = readFileSync(config, 'utf8')
    expect(text).toContain('// the scripted model')
    expect(text).toMatch(/"plugin": \[\s*\[\s*"file:\/\/[^"]*\/harnesses\/opencode\/plugin\.ts"/)
  })

  it('never runs a denied key read, and the policy reason reaches the model', async () => {
    const marker = join(home, 'denied-marker')
    const before = daemon.engine.ledger.size()
    const res = await opencode(`RUN: touch ${marker}; cat ~/.ssh/id_rsa`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    const seen = model.toolResults.at(-1) ?? ''
    expect(seen).toContain('secrets.ssh-private-key')
    expect(seen).not.toContain('PRIVATE KEY')
    expect(daemon.engine.ledger.get(before)).toMatchObject({ kind: 'decision', source: 'opencode', tool: 'Bash', verdict: 'deny', ruleId: 'secrets.ssh-private-key' })
  }, 180_000)

  it('runs an allowed echo and links its outcome row to the decision by OpenCode’s call id', async () => {
    const marker = join(home, 'allowed-marker')
    const before = daemon.engine.ledger.size()
    const res = await opencode(`RUN: echo hello > ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(readFileSync(marker, 'utf8')).toBe('hello\n')
    const decision = daemon.engine.ledger.get(before)
    expect(decision).toMatchObject({ kind: 'decision', source: 'opencode', tool: 'Bash', verdict: 'allow' })
    expect(decision!.toolUseId).toMatch(/^call_/)
    expect(daemon.engine.ledger.get(before + 1)).toMatchObject({ kind: 'outcome', verdict: 'ran', parentSeq: before, toolUseId: decision!.toolUseId })
  }, 180_000)

  it('gates MCP tools too: the plugin names the server from the config, svc decides mcp__<server>__<tool>', async () => {
    const server = { fx: { type: 'local', command: [process.execPath, join(ROOT, 'test/fixtures/mcp/server.ts')] } }
    const installed = readFileSync(config, 'utf8')
    writeFileSync(config, installed.replace('"autoupdate": false', `"autoupdate": false,\n  "mcp": ${JSON.stringify(server)}`))
    try {
      const before = daemon.engine.ledger.size()
      const res = await opencode('MCP: fx_echo {"text":"via plugin"}')
      expect(res.code, res.out).toBe(0)
      expect(model.declared.has('fx_echo')).toBe(true)
      const decision = daemon.engine.ledger.get(before)
      expect(decision).toMatchObject({ kind: 'decision', source: 'opencode', tool: 'mcp__fx__echo' })
      // Unwrapped and unpinned, or allowed: either way the model saw svc's answer or the tool's.
      expect(model.toolResults.at(-1)).toMatch(decision!.verdict === 'deny' ? /svc rule/ : /echo: via plugin/)
    } finally {
      writeFileSync(config, installed)
    }
  }, 180_000)

  it('svc mcp wrap swaps an MCP server’s argv for the proxy; the real OpenCode runs it through svc; unwrap gives back the bytes', async () => {
    const svcEnv = { SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url }
    const server = { fx: { type: 'local', command: [process.execPath, join(ROOT, 'test/fixtures/mcp/server.ts')], environment: svcEnv } }
    const installed = readFileSync(config, 'utf8')
    const configured = installed.replace('"autoupdate": false', `"autoupdate": false,\n  // my MCP server\n  "mcp": ${JSON.stringify(server)}`)
    writeFileSync(config, configured)
    try {
      const wrap = await run(join(ROOT, 'cli/svc.sh'), ['mcp', 'wrap', '--yes', '--repo', work], svcEnv)
      expect(wrap.out).toContain('wrapped fx')
      expect(readFileSync(config, 'utf8')).toContain('// my MCP server')
      // First sight: the proxy shows OpenCode no tools of an unpinned server, and queues its list for review.
      model.declared.clear()
      await opencode('MCP: fx_echo {"text":"too early"}')
      expect(model.declared.has('fx_echo')).toBe(false)
      const pins = await daemon.request('GET', '/v1/mcp/pins')
      const served = pins.body.servers.find((s: { server: string }) => s.server === 'fx').served_fingerprint
      const accepted = await daemon.request('POST', '/v1/mcp/pin/accept', { server: 'fx', fingerprint: served }, { authorization: `Bearer ${await daemon.operatorToken()}` })
      expect(accepted.status).toBe(200)
      const before = daemon.engine.ledger.size()
      const res = await opencode('MCP: fx_echo {"text":"via proxy"}')
      expect(res.code, res.out).toBe(0)
      expect(model.toolResults.at(-1)).toContain('echo: via proxy')
      const rows = Array.from({ length: daemon.engine.ledger.size() - before }, (_, i) => daemon.engine.ledger.get(before + i)!)
      const hook = rows.find((r) => r.kind === 'decision' && r.source === 'opencode' && r.tool === 'mcp__fx__echo')
      expect(hook).toMatchObject({ verdict: 'allow' })
      expect(rows.find((r) => r.kind === 'decision' && r.source === 'mcp-proxy')).toMatchObject({ tool: 'mcp__fx__echo', verdict: 'allow' })
      const unwrap = await run(join(ROOT, 'cli/svc.sh'), ['mcp', 'unwrap', '--yes', '--repo', work], svcEnv)
      expect(unwrap.code, unwrap.out).toBe(0)
      expect(readFileSync(config, 'utf8')).toBe(configured)
    } finally {
      writeFileSync(config, installed)
    }
  }, 300_000)

  it('blocks tool calls when the daemon is stopped (fail closed), with the shim’s reason', async () => {
    await daemon.stop()
    const marker = join(home, 'daemon-down-marker')
    const res = await opencode(`RUN: touch ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    expect(model.toolResults.at(-1)).toContain('The tool call was blocked (fail-closed)')
  }, 180_000)

  it('uninstalls back to the user’s bytes', async () => {
    const res = await run(join(ROOT, 'cli/svc.sh'), ['uninstall', '--yes'], { SVC_HOME: join(home, '.svc') })
    expect(res.code, res.out).toBe(0)
    expect(readFileSync(config, 'utf8')).toBe(original)
  }, 60_000)
})
