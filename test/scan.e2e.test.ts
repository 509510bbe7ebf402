/**
 * `svc scan` over transcripts the real harness binaries wrote (Claude Code, Codex, Gemini CLI, GitHub Copilot CLI,
 * OpenCode; pinned devDependencies) against scripted models on loopback, with no svc installed: an ordinary `ls` and a key read
 * (of a key that does not exist in the throwaway home, so nothing is read). The scan reports exactly the key reads,
 * per gate and pack, with reasons; a corrupt line is reported as unreadable; nothing is written to `~/.svc`.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { findCodex } from '../harnesses/codex/app-server.ts'
import { startFakeAnthropic } from './helpers/fake-anthropic.ts'
import { startFakeChat } from './helpers/fake-openai-chat.ts'
import { startFakeGemini } from './helpers/fake-gemini.ts'
import { startFakeResponses } from './helpers/fake-openai-responses.ts'
import { runCli } from './helpers/run-cli.ts'
import { spawnBounded } from './helpers/spawn-bounded.ts'
import { tempDir } from './helpers/temp.ts'

const ROOT = new URL('..', import.meta.url).pathname
const BIN = join(ROOT, 'node_modules/.bin')
const PATH = `${BIN}${delimiter}${process.env.PATH ?? ''}`
const CLAUDE = join(BIN, 'claude')
const CODEX = findCodex({ PATH: BIN })
const GEMINI = join(ROOT, 'node_modules/@google/gemini-cli/bundle/gemini.js')
const COPILOT = join(ROOT, `node_modules/@github/copilot-${process.platform}-${process.arch}/copilot`)
const OPENCODE = join(ROOT, `node_modules/opencode-${process.platform}-${process.arch}/bin/opencode`)
const COMMANDS = ['ls -la', 'cat ~/.ssh/id_rsa']

let home: string
let work: string
const ran: string[] = []

async function claude(prompt: string): Promise<void> {
  const model = await startFakeAnthropic()
  const env = {
    PATH,
    HOME: home,
    NO_COLOR: '1',
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
  }
  const r = await spawnBounded(CLAUDE, ['-p', prompt, '--allowedTools', 'Bash'], { cwd: work, env })
  await model.close()
  expect(r.code, r.out).toBe(0)
}

async function codex(prompt: string): Promise<void> {
  const model = await startFakeResponses({ toolName: 'exec_command' })
  mkdirSync(join(home, '.codex'), { recursive: true })
  writeFileSync(
    join(home, '.codex/config.toml'),
    `model = "gpt-5"\nmodel_provider = "scripted"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${model.url}"\nwire_api = "responses"\nenv_key = "SCRIPTED_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n`,
  )
  const r = await spawnBounded(CODEX!, ['exec', '--skip-git-repo-check', prompt], { cwd: work, env: { PATH, HOME: home, NO_COLOR: '1', SCRIPTED_KEY: 'k' } })
  await model.close()
  expect(r.code, r.out).toBe(0)
}

async function gemini(prompt: string): Promise<void> {
  const model = await startFakeGemini()
  const env = { PATH, HOME: home, NO_COLOR: '1', GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_CLI_NO_RELAUNCH: 'true' }
  const r = await spawnBounded(process.execPath, [GEMINI, '-p', prompt, '--approval-mode', 'yolo', '--skip-trust'], { cwd: work, env })
  await model.close()
  expect(r.code, r.out).toBe(0)
}

async function copilot(prompt: string): Promise<void> {
  const model = await startFakeChat()
  const env = { PATH, HOME: home, NO_COLOR: '1', COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: model.url, COPILOT_PROVIDER_API_KEY: 'k', COPILOT_MODEL: 'gpt-4.1' }
  const r = await spawnBounded(COPILOT, ['-p', prompt, '--allow-all-tools', '--no-auto-update'], { cwd: work, env, timeoutMs: 300_000 })
  await model.close()
  expect(r.code, r.out).toBe(0)
}

async function opencode(prompt: string): Promise<void> {
  const model = await startFakeChat()
  const provider = { fake: { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: model.url, apiKey: 'k' }, models: { m: { name: 'M', tool_call: true } } } }
  mkdirSync(join(home, '.config/opencode'), { recursive: true })
  writeFileSync(join(home, '.config/opencode/opencode.json'), JSON.stringify({ model: 'fake/m', provider, autoupdate: false }))
  const quiet = { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1', OPENCODE_DISABLE_SHARE: '1' }
  // Its background install of @opencode-ai/plugin fails at once against a dead loopback registry, offline.
  const npm = { npm_config_registry: 'http://127.0.0.1:9/', npm_config_offline: 'true' }
  const r = await spawnBounded(OPENCODE, ['run', prompt], { cwd: work, env: { PATH, HOME: home, NO_COLOR: '1', ...quiet, ...npm }, timeoutMs: 300_000 })
  await model.close()
  expect(r.code, r.out).toBe(0)
}

const claudeRuns = existsSync(CLAUDE)
const copilotRuns = existsSync(COPILOT)
const opencodeRuns = existsSync(OPENCODE)
const codexRuns = CODEX !== undefined && ['linux', 'darwin'].includes(process.platform)

beforeAll(async () => {
  home = tempDir('svc-scan-e2e-')
  work = join(home, 'work')
  mkdirSync(work)
  mkdirSync(join(home, '.gemini'))
  writeFileSync(
    join(home, '.gemini/settings.json'),
    '{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false}}',
  )
  for (const command of COMMANDS) {
    if (claudeRuns) await claude(`RUN: ${command}`)
    if (codexRuns) await codex(`RUN: ${command}`)
    await gemini(`RUN: ${command}`)
    if (copilotRuns) await copilot(`RUN: ${command}`)
    if (opencodeRuns) await opencode(`RUN: ${command}`)
  }
  ran.push(...(claudeRuns ? ['claude-code'] : []), ...(codexRuns ? ['codex'] : []), 'gemini', ...(copilotRuns ? ['copilot-cli'] : []), ...(opencodeRuns ? ['opencode'] : []))
}, 900_000)

const scan = (args: string[]) => runCli(['scan', ...args], { HOME: home })

describe('svc scan over real transcripts', () => {
  it('reports exactly the key reads, per gate and pack, with the reason, and writes nothing', async () => {
    const r = await scan(['--json'])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout) as {
      calls: number
      denied: { harness: string; tool: string; subject: string; rule_id: string; pack: string; reason: string; cwd?: string }[]
      per_gate: Record<string, number>
      per_pack: Record<string, number>
      searched: { harness: string; transcripts: number; calls: number; found: boolean }[]
      unreadable: unknown[]
    }
    expect(report.calls).toBe(ran.length * COMMANDS.length)
    expect(report.denied.map((d) => d.harness).sort()).toEqual([...ran].sort())
    for (const d of report.denied) {
      expect(d).toMatchObject({ subject: 'cat ~/.ssh/id_rsa', rule_id: 'secrets.ssh-private-key', pack: 'secrets', cwd: work })
      expect(d.reason).toContain('private key')
    }
    expect(report.per_gate).toEqual({ 'secrets.ssh-private-key': ran.length })
    expect(report.per_pack).toEqual({ secrets: ran.length })
    for (const h of ran) expect(report.searched.find((s) => s.harness === h)).toMatchObject({ found: true, calls: COMMANDS.length })
    expect(report.unreadable).toEqual([])
    expect(existsSync(join(home, '.svc'))).toBe(false)
  }, 60_000)

  it('says what it could not read, and the text form names the gate and the false-positive reading', async () => {
    const dir = join(home, '.gemini/tmp')
    const project = readdirSync(dir).find((d) => existsSync(join(dir, d, 'chats')))!
    const chat = readdirSync(join(dir, project, 'chats'))[0]!
    appendFileSync(join(dir, project, 'chats', chat), '{"id":"cut-off","type":"gemini","toolCa\n')
    const r = await scan(['--harness', 'gemini'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('1 of 2 calls would have been denied')
    expect(r.stdout).toMatch(/secrets\.ssh-private-key\s+secrets\s+1/)
    expect(r.stdout).toContain('could not read 1 entry')
    expect(r.stdout).toContain('not valid JSON (a truncated or corrupt line)')
    expect(r.stdout).toContain('was ordinary work, svc would have stopped it')
    expect((await scan(['--harness', 'gemini', '--exit-code'])).code).toBe(1)
    expect(existsSync(join(home, '.svc'))).toBe(false)
  }, 60_000)

  it('refuses a harness it has no transcripts for, naming those it has', async () => {
    const r = await scan(['--harness', 'nope'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('harnesses with transcripts: claude-code, codex, gemini, copilot-cli, opencode')
  })
})
