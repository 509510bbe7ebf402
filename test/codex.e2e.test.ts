/**
 * End to end with the real Codex CLI (pinned devDependency; its binary comes in the platform package from
 * npm) against a scripted Responses API on loopback: `svc install` alone wires AND trusts the hooks, so the
 * first tool call is gated; a denied key read never runs and its reason reaches the model; an allowed echo
 * runs; a stopped daemon blocks (fail closed).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findCodex } from '../harnesses/codex/app-server.ts'
import { startFakeResponses, type FakeResponses } from './helpers/fake-openai-responses.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { spawnBounded } from './helpers/spawn-bounded.ts'

const ROOT = new URL('..', import.meta.url).pathname
const BIN = join(ROOT, 'node_modules/.bin')
const PATH = `${BIN}${delimiter}${process.env.PATH ?? ''}`
const CODEX = findCodex({ PATH: BIN })
const RUNNABLE = CODEX !== undefined && ['linux', 'darwin'].includes(process.platform)

let daemon: TestDaemon
let model: FakeResponses
let home: string
let codexHome: string
let work: string

const run = (cmd: string, args: string[], env: Record<string, string>) =>
  spawnBounded(cmd, args, { cwd: work, env: { PATH, HOME: home, CODEX_HOME: codexHome, NO_COLOR: '1', ...env } })

const svc = (args: string[], env: Record<string, string> = {}) =>
  run(join(ROOT, 'cli/svc.sh'), args, { SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url, SVC_ADMIN_PASSWORD: 'correct horse battery', ...env })
const codex = (prompt: string) => run(CODEX!, ['exec', '--skip-git-repo-check', prompt], { SCRIPTED_KEY: 'test-key' })

const configToml = (url: string) => `# my codex config
model = "gpt-5"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.scripted]
name = "scripted"
base_url = "${url}"
wire_api = "responses"
env_key = "SCRIPTED_KEY"
request_max_retries = 0
stream_max_retries = 0
`

describe.skipIf(!RUNNABLE)('Codex CLI with svc installed (real binary)', () => {
  beforeAll(async () => {
    home = tempDir('svc-codex-e2e-')
    codexHome = join(home, 'codex-home') // not ~/.codex: CODEX_HOME must be honoured
    work = join(home, 'work')
    mkdirSync(work, { recursive: true })
    mkdirSync(codexHome)
    mkdirSync(join(home, '.ssh'))
    writeFileSync(join(home, '.ssh/id_rsa'), 'PRIVATE KEY\n')
    model = await startFakeResponses({ toolName: 'exec_command' })
    writeFileSync(join(codexHome, 'config.toml'), configToml(model.url))
    // The user's own hook, untrusted: svc must never trust it.
    writeFileSync(
      join(codexHome, 'hooks.json'),
      JSON.stringify({ hooks: { PostToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: 'true # the user’s own' }] }] } }, null, 2),
    )
    daemon = await startTestDaemon({ home: join(home, '.svc'), env: { SVC_USER_HOME: home } })
  }, 60_000)

  afterAll(async () => {
    await model?.close()
    await daemon?.stop()
  })

  it('refuses to report success when it cannot ask Codex to trust the hooks, and says what to do', async () => {
    const other = join(home, 'other')
    const res = await run(join(ROOT, 'cli/svc.sh'), ['install', '--harness', 'codex', '--yes'], {
      PATH: process.env
        .PATH!.split(delimiter)
        .filter((d) => !findCodex({ PATH: d }))
        .join(delimiter),
      SVC_HOME: join(other, '.svc'),
      CODEX_HOME: join(other, 'codex'),
      SVC_URL: daemon.url,
      SVC_ALLOW_UNATTESTED: '1',
    })
    expect(res.code).toBe(1)
    expect(res.out).toContain('Codex will not run them')
    expect(res.out).toContain('type `/hooks`')
    expect(res.out).not.toContain('installed svc hooks for codex')
  }, 60_000)

  it('svc install alone trusts exactly svc’s entries, in the config CODEX_HOME names', async () => {
    const install = await svc(['install', '--harness', 'codex', '--yes'])
    expect(install.out).toContain("codex: trusted svc's 2 hook entries")
    expect(install.out).toContain('installed svc hooks for codex')
    expect(install.code).toBe(0)
    const config = readFileSync(join(codexHome, 'config.toml'), 'utf8')
    expect(config).toContain('# my codex config')
    expect(config.match(/trusted_hash = "sha256:/g)).toHaveLength(2)
    expect(config).not.toContain('post_tool_use:0:0') // the user's entry keeps its own (untrusted) state
    expect(existsSync(join(home, '.codex'))).toBe(false)
    const status = await svc(['status', '--json'])
    expect(JSON.parse(status.out.slice(0, status.out.lastIndexOf('}') + 1)).problems.filter((p: { what: string }) => p.what.startsWith('codex'))).toEqual([])
  }, 60_000)

  it('gates the first tool call: a denied key read never runs and the reason reaches the model', async () => {
    const marker = join(home, 'denied-marker')
    const before = daemon.engine.ledger.size()
    const res = await codex(`RUN: touch ${marker}; cat ~/.ssh/id_rsa`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    const seen = model.toolOutputs.at(-1) ?? ''
    expect(seen).toContain('secrets.ssh-private-key')
    expect(seen).not.toContain('PRIVATE KEY')
    expect(daemon.engine.ledger.get(before)).toMatchObject({ kind: 'decision', source: 'codex', tool: 'Bash', verdict: 'deny', ruleId: 'secrets.ssh-private-key' })
  }, 120_000)

  it('runs an allowed echo and records its decision', async () => {
    const marker = join(home, 'allowed-marker')
    const before = daemon.engine.ledger.size()
    const res = await codex(`RUN: echo hello > ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(readFileSync(marker, 'utf8')).toBe('hello\n')
    expect(daemon.engine.ledger.get(before)).toMatchObject({ kind: 'decision', source: 'codex', tool: 'Bash', verdict: 'allow' })
  }, 120_000)

  it('svc status says so when the user disables svc’s entry in Codex', async () => {
    const path = join(codexHome, 'config.toml')
    const original = readFileSync(path, 'utf8')
    expect(original).toContain('enabled = true')
    try {
      writeFileSync(path, original.replace('enabled = true', 'enabled = false'))
      const status = await svc(['status'])
      expect(status.code).toBe(1)
      expect(status.out).toMatch(/codex: .*is disabled/)
    } finally {
      writeFileSync(path, original)
    }
  }, 60_000)

  it('svc doctor asks Codex itself, and --fix trusts exactly svc’s entries again', async () => {
    const path = join(codexHome, 'config.toml')
    writeFileSync(path, readFileSync(path, 'utf8').replace(/trusted_hash = "sha256:[0-9a-f]+"\n/g, ''))
    const doctor = await svc(['doctor'])
    expect(doctor.code).toBe(1)
    expect(doctor.out).toMatch(/codex: Codex has svc hook entries it will not run: .*\(untrusted\).* \[fix\]/)
    const fixed = await svc(['doctor', '--fix'])
    expect(fixed.out).toContain("fixed: trusted svc's 2 Codex hook entries through Codex's app server")
    expect(fixed.out).not.toContain('codex: Codex has')
    expect(readFileSync(path, 'utf8').match(/trusted_hash = "sha256:/g)).toHaveLength(2)
  }, 90_000)

  it('blocks tool calls when the daemon is stopped (fail closed)', async () => {
    await daemon.stop()
    const marker = join(home, 'daemon-down-marker')
    const res = await codex(`RUN: touch ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    expect(model.toolOutputs.at(-1)).toMatch(/svc/i)
  }, 120_000)

  it('uninstall removes svc’s entries and the trust it had Codex record, and nothing of the user’s', async () => {
    const res = await svc(['uninstall', '--yes'])
    expect(res.code, res.out).toBe(0)
    expect(res.out).toContain("codex: removed the Codex trust of svc's 2 entries")
    const config = readFileSync(join(codexHome, 'config.toml'), 'utf8')
    expect(config).toContain('# my codex config')
    expect(config).not.toContain('trusted_hash')
    // Codex's app server leaves an empty `[hooks.state]` behind; svc takes it out, so the file is the user's again.
    expect(config).toBe(configToml(model.url))
    expect(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).toContain('the user’s own')
    expect(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).not.toContain('svc-hook')
  }, 60_000)
})
