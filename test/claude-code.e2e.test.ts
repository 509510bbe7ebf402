/**
 * End to end with the real Claude Code (pinned devDependency; its native binary comes in the platform package
 * from npm) against a scripted Anthropic Messages API on loopback, with a dummy API key and no login:
 * `svc install` alone (into the config dir CLAUDE_CONFIG_DIR names) gates the first tool call; a denied key
 * read never runs and its reason reaches the model; an allowed echo runs; a stopped daemon blocks.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeAnthropic, type FakeAnthropic } from './helpers/fake-anthropic.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { spawnBounded } from './helpers/spawn-bounded.ts'

const ROOT = new URL('..', import.meta.url).pathname
const CLAUDE = join(ROOT, 'node_modules/.bin/claude')
const PATH = `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`

/** The installed binary runs here (the npm postinstall put the native binary in place of its stub). */
function runnable(): boolean {
  try {
    return existsSync(CLAUDE) && readFileSync(CLAUDE).length > 1_000_000
  } catch {
    return false
  }
}

let daemon: TestDaemon
let model: FakeAnthropic
let home: string
let configDir: string
let work: string

const run = (cmd: string, args: string[], env: Record<string, string>) =>
  spawnBounded(cmd, args, { cwd: work, env: { PATH, HOME: home, CLAUDE_CONFIG_DIR: configDir, NO_COLOR: '1', ...env } })
const svc = (args: string[]) => run(join(ROOT, 'cli/svc.sh'), args, { SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url, SVC_ADMIN_PASSWORD: 'correct horse battery' })
// `--allowedTools Bash`: Claude Code's own permission prompt would otherwise stop a headless run (and
// --dangerously-skip-permissions is refused to root). svc's hook runs before either.
const claude = (prompt: string) =>
  run(CLAUDE, ['-p', prompt, '--allowedTools', 'Bash'], {
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
  })

describe.skipIf(!runnable())('Claude Code with svc installed (real binary)', () => {
  beforeAll(async () => {
    home = tempDir('svc-claude-e2e-')
    configDir = join(home, 'claude-config') // not ~/.claude: CLAUDE_CONFIG_DIR must be honoured
    work = join(home, 'work')
    mkdirSync(work, { recursive: true })
    mkdirSync(configDir)
    writeFileSync(join(configDir, 'settings.json'), '{\n  "theme": "dark"\n}\n')
    mkdirSync(join(home, '.ssh'))
    writeFileSync(join(home, '.ssh/id_rsa'), 'PRIVATE KEY\n')
    model = await startFakeAnthropic()
    daemon = await startTestDaemon({ home: join(home, '.svc'), env: { SVC_USER_HOME: home } })
    const install = await svc(['install', '--harness', 'claude-code', '--yes'])
    expect(install.out).toContain('installed svc hooks for claude-code')
    expect(install.code).toBe(0)
  }, 60_000)

  afterAll(async () => {
    await model?.close()
    await daemon?.stop()
  })

  it('wrote the hooks into the settings CLAUDE_CONFIG_DIR names, keeping the user’s lines', () => {
    const settings = readFileSync(join(configDir, 'settings.json'), 'utf8')
    expect(settings).toContain('"theme": "dark"')
    expect(settings).toContain('svc-hook')
    expect(existsSync(join(home, '.claude/settings.json'))).toBe(false)
  })

  it('gates the first tool call: a denied key read never runs and the reason reaches the model', async () => {
    const marker = join(home, 'denied-marker')
    const before = daemon.engine.ledger.size()
    const res = await claude(`RUN: touch ${marker}; cat ~/.ssh/id_rsa`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    const seen = model.toolResults.at(-1) ?? ''
    expect(seen).toContain('secrets.ssh-private-key')
    expect(seen).not.toContain('PRIVATE KEY')
    expect(daemon.engine.ledger.get(before)).toMatchObject({ kind: 'decision', source: 'claude-code', tool: 'Bash', verdict: 'deny', ruleId: 'secrets.ssh-private-key' })
  }, 120_000)

  it('runs an allowed echo and links its outcome to the decision', async () => {
    const marker = join(home, 'allowed-marker')
    const before = daemon.engine.ledger.size()
    const res = await claude(`RUN: echo hello > ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(readFileSync(marker, 'utf8')).toBe('hello\n')
    const decision = daemon.engine.ledger.get(before)
    expect(decision).toMatchObject({ kind: 'decision', source: 'claude-code', tool: 'Bash', verdict: 'allow' })
    expect(daemon.engine.ledger.get(before + 1)).toMatchObject({ kind: 'outcome', verdict: 'ran', parentSeq: before })
  }, 120_000)

  it('a comment in settings.json switches every hook off: svc status says so and svc install refuses the file', async () => {
    const path = join(configDir, 'settings.json')
    const original = readFileSync(path, 'utf8')
    try {
      writeFileSync(path, original.replace('{', '{\n  // a comment'))
      const marker = join(home, 'ignored-marker')
      const before = daemon.engine.ledger.size()
      expect((await claude(`RUN: touch ${marker}`)).code).toBe(0)
      // Claude Code ignored the whole file: the tool ran and svc never heard of it.
      expect(existsSync(marker)).toBe(true)
      expect(daemon.engine.ledger.size()).toBe(before)
      const status = await svc(['status'])
      expect(status.code).toBe(1)
      expect(status.out).toContain(`claude-code: a file that is not strict JSON (comments or trailing commas; Claude Code ignores all of it) in ${path}`)
      const install = await svc(['install', '--harness', 'claude-code', '--yes'])
      expect(install.code).toBe(1)
      expect(install.out).toContain('is not strict JSON (comments or trailing commas): Claude Code ignores the whole file')
    } finally {
      writeFileSync(path, original)
    }
  }, 120_000)

  it('blocks tool calls when the daemon is stopped (fail closed)', async () => {
    await daemon.stop()
    const marker = join(home, 'daemon-down-marker')
    const res = await claude(`RUN: touch ${marker}`)
    expect(res.code, res.out).toBe(0)
    expect(existsSync(marker)).toBe(false)
    expect(model.toolResults.at(-1)).toMatch(/svc/i)
  }, 120_000)
})
