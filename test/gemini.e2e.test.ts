/**
 * End to end with the real Gemini CLI (pinned devDependency) against a scripted model on loopback:
 * `svc install` wires the hook, a denied tool call never runs and its reason reaches the model, an
 * allowed one runs and its outcome row links to its decision.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeGemini, type FakeGemini } from './helpers/fake-gemini.ts'
import { childEnv } from './helpers/child-env.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

const ROOT = new URL('..', import.meta.url).pathname
const GEMINI = join(ROOT, 'node_modules/@google/gemini-cli/bundle/gemini.js')
const SETTINGS = `// my Gemini settings
{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "privacy": { "usageStatisticsEnabled": false }, // no telemetry in tests
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false }
}
`

let daemon: TestDaemon
let model: FakeGemini
let home: string
let work: string

function run(cmd: string, args: string[], env: Record<string, string>, input = ''): Promise<{ code: number; out: string }> {
  const child = spawn(cmd, args, { cwd: work, env: childEnv({ HOME: home, NO_COLOR: '1', ...env }), stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (c) => (out += c))
  child.stderr.on('data', (c) => (out += c))
  child.stdin.end(input)
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out })))
}

// The CLI relaunches itself only to raise its heap limit (a second Node process per run): not needed for a one-turn
// script. run() passes the run's compile cache, which spares compiling its 70 MB bundle again on every run.
const gemini = (prompt: string, env: Record<string, string> = {}) =>
  run(process.execPath, [GEMINI, '-p', prompt, '--approval-mode', 'yolo', '--skip-trust'], {
    GEMINI_API_KEY: 'test-key',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_NO_RELAUNCH: 'true',
    ...env,
  })
/** `svc <args>` in this process (the commands below do not depend on their working directory). */
const svc = async (args: string[], env: Record<string, string>) => {
  const r = await runCli(args, { HOME: home, ...env })
  return { code: r.code, out: r.stdout + r.stderr }
}
// Project-level MCP servers load only in a trusted workspace.
const trusted = { GEMINI_CLI_TRUST_WORKSPACE: 'true' }

beforeAll(async () => {
  home = tempDir('svc-gemini-e2e-')
  work = join(home, 'work')
  mkdirSync(work, { recursive: true })
  mkdirSync(join(home, '.gemini'))
  writeFileSync(join(home, '.gemini/settings.json'), SETTINGS)
  // The CLI and the daemon share $SVC_HOME, so the shim checks answers with the daemon's hook key.
  daemon = await startTestDaemon({ home: join(home, '.svc'), env: { SVC_USER_HOME: home } })
  model = await startFakeGemini()
  const install = await svc(['install', '--harness', 'gemini', '--yes'], { SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url, SVC_ADMIN_PASSWORD: 'correct horse battery' })
  expect(install.out).toContain('installed svc hooks for gemini')
  expect(install.out).toContain('UNATTESTED — LEDGER NOT SIGNED')
  expect(install.code).toBe(0)
}, 60_000)

afterAll(async () => {
  await model?.close()
  await daemon?.stop()
})

describe('Gemini CLI with svc installed', () => {
  it('keeps the user’s comments in settings.json', () => {
    const settings = readFileSync(join(home, '.gemini/settings.json'), 'utf8')
    expect(settings).toContain('// my Gemini settings')
    expect(settings).toContain('// no telemetry in tests')
    expect(settings).toContain('"name": "svc:BeforeTool"')
  })

  it('never runs a denied tool call, and the policy reason reaches the model', async () => {
    const marker = join(home, 'denied-marker')
    const before = daemon.engine.ledger.size()
    const res = await gemini(`RUN: touch ${marker}; cat ~/.ssh/id_rsa`)
    expect(res.code).toBe(0)
    expect(existsSync(marker)).toBe(false)
    const result = JSON.stringify(model.toolResults.at(-1))
    expect(result).toContain('secrets.ssh-private-key')
    expect(result).toContain('Private keys never leave ~/.ssh')
    const decision = daemon.engine.ledger.get(before)
    expect(decision).toMatchObject({ kind: 'decision', source: 'gemini', tool: 'Bash', verdict: 'deny', ruleId: 'secrets.ssh-private-key' })
  }, 60_000)

  it('runs an allowed tool call and links its outcome row to the decision', async () => {
    const marker = join(home, 'allowed-marker')
    const before = daemon.engine.ledger.size()
    const res = await gemini(`RUN: touch ${marker}`)
    expect(res.code).toBe(0)
    expect(existsSync(marker)).toBe(true)
    const decision = daemon.engine.ledger.get(before)
    expect(decision).toMatchObject({ kind: 'decision', source: 'gemini', tool: 'Bash', verdict: 'allow' })
    const outcome = daemon.engine.ledger.get(before + 1)
    expect(outcome).toMatchObject({ kind: 'outcome', verdict: 'ran', parentSeq: before, toolUseId: decision!.toolUseId })
    expect(model.requests.every((r) => r.startsWith('POST /v1beta/models/'))).toBe(true)
  }, 60_000)

  it('a project that switches svc’s hook off is caught: the agent cannot write it, the run is ledgered, status says protection is off', async () => {
    // The agent cannot write the switch.
    const marker = join(home, 'switch-marker')
    const denied = await gemini(`RUN: touch ${marker}; mkdir -p .gemini && echo '{"hooksConfig":{"disabled":["svc:BeforeTool"]}}' > .gemini/settings.json`)
    expect(denied.code).toBe(0)
    expect(existsSync(join(work, '.gemini/settings.json'))).toBe(false)
    expect(JSON.stringify(model.toolResults.at(-1))).toContain('self.harness-config')
    // A human can: Gemini merges the project layer, runs the tool without BeforeTool, and AfterTool still reaches svc.
    mkdirSync(join(work, '.gemini'), { recursive: true })
    writeFileSync(join(work, '.gemini/settings.json'), '{ "hooksConfig": { "disabled": ["svc:BeforeTool"] } }\n')
    try {
      const ran = join(home, 'ungated-marker')
      const before = daemon.engine.ledger.size()
      // A trusted workspace: Gemini merges its project settings (`--skip-trust` is applied after settings load).
      expect((await gemini(`RUN: touch ${ran}`, trusted)).code).toBe(0)
      expect(existsSync(ran)).toBe(true)
      const leaves = Array.from({ length: daemon.engine.ledger.size() - before }, (_, i) => daemon.engine.ledger.get(before + i))
      expect(leaves.find((l) => l?.kind === 'control')).toMatchObject({ kind: 'control', verdict: 'hook_bypassed', source: 'svc' })
      const coverage = await daemon.request('GET', '/v1/hooks/coverage')
      expect(coverage.body.sessions.find((x: { ungated: number }) => x.ungated > 0)).toMatchObject({ harness: 'gemini', ungated: 1, cwd: work })
      // A child process: status reads the project from its working directory.
      const status = await run(join(ROOT, 'cli/svc.sh'), ['status'], { SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url })
      expect(status.code).toBe(1)
      expect(status.out).toContain(`protection is OFF for project ${work}: hooksConfig.disabled lists svc:BeforeTool`)
      expect(status.out).toMatch(/gemini session \S+ in .* ran 1 tool call svc never gated/)
    } finally {
      rmSync(join(work, '.gemini'), { recursive: true, force: true })
    }
  }, 120_000)

  it('runs an MCP tool through svc mcp-proxy once its tools are pinned; hook and proxy decisions are linked', async () => {
    const project = join(work, '.gemini/settings.json')
    mkdirSync(join(work, '.git'), { recursive: true })
    mkdirSync(join(work, '.gemini'), { recursive: true })
    const original = `{\n  // a project MCP server\n  "mcpServers": { "fx": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(join(ROOT, 'test/fixtures/mcp/server.ts'))}], "env": { "SVC_HOME": ${JSON.stringify(join(home, '.svc'))}, "SVC_URL": ${JSON.stringify(daemon.url)} } } }\n}\n`
    writeFileSync(project, original)
    const svcEnv = { SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url }
    const wrap = await svc(['mcp', 'wrap', '--yes', '--repo', work], svcEnv)
    expect(wrap.out).toContain('wrapped fx')
    // First sight: the proxy shows the CLI no tools of an unpinned server, and queues its list for review.
    await gemini('MCP: mcp_fx_echo {"text":"too early"}', trusted)
    expect(model.declared.has('mcp_fx_echo')).toBe(false)
    const pins = await daemon.request('GET', '/v1/mcp/pins')
    const served = pins.body.servers.find((s: { server: string }) => s.server === 'fx').served_fingerprint
    const accepted = await daemon.request('POST', '/v1/mcp/pin/accept', { server: 'fx', fingerprint: served }, { authorization: `Bearer ${await daemon.operatorToken()}` })
    expect(accepted.status).toBe(200)
    const before = daemon.engine.ledger.size()
    const res = await gemini('MCP: mcp_fx_echo {"text":"via proxy"}', trusted)
    expect(res.code).toBe(0)
    expect(model.declared.has('mcp_fx_echo')).toBe(true)
    expect(JSON.stringify(model.toolResults.at(-1))).toContain('echo: via proxy')
    const rows = Array.from({ length: daemon.engine.ledger.size() - before }, (_, i) => daemon.engine.ledger.get(before + i)!)
    const hook = rows.find((r) => r.kind === 'decision' && r.source === 'gemini' && r.tool === 'mcp__fx__echo')
    expect(hook).toMatchObject({ verdict: 'allow' })
    expect(rows.find((r) => r.kind === 'decision' && r.source === 'mcp-proxy')).toMatchObject({ tool: 'mcp__fx__echo', verdict: 'allow', linkSeq: hook!.seq })
    const unwrap = await svc(['mcp', 'unwrap', '--yes', '--repo', work], svcEnv)
    expect(unwrap.code).toBe(0)
    expect(readFileSync(project, 'utf8')).toBe(original)
  }, 120_000)

  it('uninstalls back to the user’s bytes', async () => {
    const res = await svc(['uninstall', '--yes'], { SVC_HOME: join(home, '.svc') })
    expect(res.code).toBe(0)
    expect(readFileSync(join(home, '.gemini/settings.json'), 'utf8')).toBe(SETTINGS)
  }, 60_000)
})
