import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse as parseJsonc } from 'jsonc-parser'
import { applyInstall, applyUninstall } from '../plugins/installer/apply.ts'
import { PlanConflictError, planInstall, planUninstall } from '../plugins/installer/plan.ts'
import type { InstallRequest } from '../plugins/installer/plan.ts'
import { schemaProblems } from '../plugins/installer/validate.ts'
import { readManifest } from '../plugins/installer/manifest.ts'
import { harnessPlugins } from '../harnesses/index.ts'

const defs = harnessPlugins.map((p) => p.harness)
let root: string
let home: string
let svcHome: string
let repo: string

const CLAUDE = `{
  "permissions": { "deny": ["Read(./.env)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "/usr/local/bin/audit.sh" } ] }
    ]
  }
}
`
const GEMINI = `// my gemini settings
{
  "ui": { "theme": "GitHub" }, // keep this comment
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_TOKEN": "secret-value" } }
  },
  "hooks": {
    "BeforeTool": [
      { "matcher": "write_file", "hooks": [ { "type": "command", "name": "lint", "command": "lint.sh", "timeout": 3000 } ] }
    ]
  }
}
`
const CODEX_HOOKS = `{
  "hooks": {
    "PreToolUse": [ { "matcher": "^Bash$", "hooks": [ { "type": "command", "command": "my-check" } ] } ]
  }
}
`
const CODEX_TOML = `# my codex config
model = "gpt-5"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]
env = { DOCS_TOKEN = "secret" }
`

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

function request(over: Partial<InstallRequest> = {}): InstallRequest {
  return { harnesses: defs, scope: 'user', env: { home, env: {} }, svcHome, daemonUrl: 'http://127.0.0.1:7878', failOpen: false, transport: 'command', ...over }
}

function snapshot(paths: string[]): Record<string, string | null> {
  return Object.fromEntries(paths.map((p) => [p, existsSync(p) ? readFileSync(p, 'utf8') : null]))
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-install-'))
  home = join(root, 'home')
  svcHome = join(root, 'svc')
  repo = join(root, 'repo')
  write(join(home, '.claude/settings.json'), CLAUDE)
  write(join(home, '.gemini/settings.json'), GEMINI)
  write(join(home, '.codex/hooks.json'), CODEX_HOOKS)
  write(join(home, '.codex/config.toml'), CODEX_TOML)
  mkdirSync(join(home, '.cursor'), { recursive: true })
  mkdirSync(repo, { recursive: true })
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const userFiles = () => [
  join(home, '.claude/settings.json'),
  join(home, '.gemini/settings.json'),
  join(home, '.codex/hooks.json'),
  join(home, '.codex/config.toml'),
  join(home, '.cursor/hooks.json'),
]

describe('install plan', () => {
  it('appends our entries last, keeps comments and user hooks, and validates against the published schemas', () => {
    const plan = planInstall(request())
    expect(plan.changes.map((c) => c.path).sort()).toEqual(
      [join(home, '.claude/settings.json'), join(home, '.codex/hooks.json'), join(home, '.cursor/hooks.json'), join(home, '.gemini/settings.json')].sort(),
    )
    const gemini = plan.changes.find((c) => c.path.endsWith('.gemini/settings.json'))!
    expect(gemini.after).toContain('// keep this comment')
    expect(gemini.after).toContain('// my gemini settings')
    const geminiValue = parseJsonc(gemini.after!) as { hooks: { BeforeTool: { hooks: { name: string; command: string }[] }[] } }
    expect(geminiValue.hooks.BeforeTool.map((g) => g.hooks[0]!.name)).toEqual(['lint', 'svc:BeforeTool'])
    expect(geminiValue.hooks.BeforeTool[1]!.hooks[0]!.command).toBe(`${svcHome}/bin/svc-hook gemini BeforeTool --url=http://127.0.0.1:7878 --svc-install=${plan.installId}`)
    const codex = JSON.parse(plan.changes.find((c) => c.path.endsWith('.codex/hooks.json'))!.after!)
    expect(codex.hooks.PreToolUse.map((g: { matcher: string }) => g.matcher)).toEqual(['^Bash$', '.*'])
    const schemas: Record<string, string> = {
      '.claude/settings.json': 'harnesses/claude-code/settings.schema.json',
      '.codex/hooks.json': 'harnesses/codex/hooks.schema.json',
      '.gemini/settings.json': 'harnesses/gemini/settings.schema.json',
    }
    for (const change of plan.changes) {
      const schema = Object.entries(schemas).find(([suffix]) => change.path.endsWith(suffix))?.[1]
      if (schema) expect(schemaProblems(schema, parseJsonc(change.after!))).toEqual([])
      expect(change.diff).toContain('+')
    }
    const cursor = JSON.parse(plan.changes.find((c) => c.path.endsWith('.cursor/hooks.json'))!.after!)
    expect(cursor.version).toBe(1)
    expect(cursor.hooks.preToolUse[0]).toMatchObject({ timeout: 10, failClosed: true })
    expect(plan.notes.join('\n')).toMatch(/trusts svc's entries through Codex's app server/)
    // Planning writes nothing.
    expect(existsSync(join(home, '.cursor/hooks.json'))).toBe(false)
    expect(existsSync(svcHome)).toBe(false)
  })

  it('warns when the harness has hooks switched off, since svc would then gate nothing', () => {
    write(join(home, '.gemini/settings.json'), '{ "hooksConfig": { "enabled": false } }')
    write(join(home, '.claude/settings.json'), '{ "disableAllHooks": true }')
    write(join(home, '.codex/config.toml'), '[features]\nhooks = false\n')
    const notes = planInstall(request()).notes.join('\n')
    expect(notes).toMatch(/Gemini CLI: WARNING: hooksConfig.enabled is false/)
    expect(notes).toMatch(/Claude Code: WARNING: disableAllHooks is true/)
    expect(notes).toMatch(/OpenAI Codex CLI: WARNING: \[features\] turns hooks off/)
  })

  it('refuses a config file that is not valid JSON, naming it', () => {
    write(join(home, '.claude/settings.json'), '{ "hooks": ')
    expect(() => planInstall(request())).toThrow(/settings\.json is not valid JSON/)
  })
})

describe('install → uninstall', () => {
  it('round-trips every file byte for byte and the same token twice is a no-op', () => {
    const before = snapshot(userFiles())
    const plan = planInstall(request())
    expect(applyInstall(request(), plan.token).applied).toBe(true)
    for (const change of plan.changes) expect(readFileSync(change.path, 'utf8')).toBe(change.after)
    expect(statSync(join(svcHome, 'bin/svc-hook')).mode & 0o111).not.toBe(0)
    const installed = snapshot(userFiles())
    expect(applyInstall(request(), plan.token).applied).toBe(false)
    expect(snapshot(userFiles())).toEqual(installed)
    expect(planInstall(request()).changes).toEqual([])

    const un = planUninstall({ svcHome, harnesses: defs })
    expect(un.warnings).toEqual([])
    applyUninstall({ svcHome, harnesses: defs }, un.token)
    expect(snapshot(userFiles())).toEqual(before)
    expect(Object.keys(readManifest(svcHome).files)).toEqual([])
  })

  it('rejects a token whose plan no longer matches the files (409)', () => {
    const plan = planInstall(request())
    write(join(home, '.claude/settings.json'), CLAUDE.replace('Read(./.env)', 'Read(./secrets)'))
    expect(() => applyInstall(request(), plan.token)).toThrow(PlanConflictError)
  })

  it('keeps user edits made after install and leaves an edited svc entry alone with a warning', () => {
    const plan = planInstall(request({ harnesses: defs.filter((d) => d.id === 'gemini' || d.id === 'claude-code') }))
    applyInstall(request({ harnesses: defs.filter((d) => d.id === 'gemini' || d.id === 'claude-code') }), plan.token)
    const geminiPath = join(home, '.gemini/settings.json')
    const claudePath = join(home, '.claude/settings.json')
    writeFileSync(geminiPath, readFileSync(geminiPath, 'utf8').replace('"theme": "GitHub"', '"theme": "Dracula"'))
    writeFileSync(claudePath, readFileSync(claudePath, 'utf8').replace(/"timeout": 10/, '"timeout": 99'))
    const un = planUninstall({ svcHome, harnesses: defs })
    applyUninstall({ svcHome, harnesses: defs }, un.token)
    expect(readFileSync(geminiPath, 'utf8')).toBe(GEMINI.replace('"theme": "GitHub"', '"theme": "Dracula"'))
    expect(un.warnings.join('\n')).toMatch(/settings\.json: the svc entry at \/hooks\/PreToolUse was edited since install; left it alone/)
    const claude = JSON.parse(readFileSync(claudePath, 'utf8'))
    expect(claude.hooks.PreToolUse).toHaveLength(2)
    expect(claude.hooks.PostToolUse).toBeUndefined()
  })

  it('creates and removes repo-scope files and directories', () => {
    const req = request({ scope: 'repo', env: { home, repo, env: {} } })
    const plan = planInstall(req)
    expect(plan.changes.map((c) => c.path.slice(repo.length)).sort()).toEqual(['/.claude/settings.local.json', '/.codex/hooks.json', '/.cursor/hooks.json', '/.gemini/settings.json'])
    applyInstall(req, plan.token)
    expect(existsSync(join(repo, '.gemini/settings.json'))).toBe(true)
    const un = planUninstall({ svcHome, harnesses: defs, scope: 'repo' })
    applyUninstall({ svcHome, harnesses: defs, scope: 'repo' }, un.token)
    expect(existsSync(join(repo, '.gemini'))).toBe(false)
    expect(existsSync(join(repo, '.claude'))).toBe(false)
  })

  it('appends a TOML block when Codex hooks live in config.toml, and removes exactly that block', () => {
    rmSync(join(home, '.codex/hooks.json'))
    const toml = `${CODEX_TOML}\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "my-check"`
    write(join(home, '.codex/config.toml'), toml)
    const req = request({ harnesses: defs.filter((d) => d.id === 'codex') })
    const plan = planInstall(req)
    expect(plan.changes).toHaveLength(1)
    expect(plan.changes[0]!.after!.startsWith(toml)).toBe(true)
    expect(plan.changes[0]!.after).toContain('[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "')
    applyInstall(req, plan.token)
    // A user edit elsewhere: the block is still removed verbatim.
    const path = join(home, '.codex/config.toml')
    writeFileSync(path, readFileSync(path, 'utf8').replace('model = "gpt-5"', 'model = "gpt-5.1"'))
    const un = planUninstall({ svcHome, harnesses: defs })
    applyUninstall({ svcHome, harnesses: defs }, un.token)
    expect(readFileSync(path, 'utf8')).toBe(toml.replace('model = "gpt-5"', 'model = "gpt-5.1"'))
  })

  it('keeps Codex hooks in hooks.json when config.toml only holds trust state', () => {
    rmSync(join(home, '.codex/hooks.json'))
    write(join(home, '.codex/config.toml'), `${CODEX_TOML}\n[hooks.state."/x/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:00"\n`)
    const plan = planInstall(request({ harnesses: defs.filter((d) => d.id === 'codex') }))
    expect(plan.changes.map((c) => c.path)).toEqual([join(home, '.codex/hooks.json')])
  })

  it('offers the Claude HTTP hook as an opt-in and says it fails open', () => {
    const plan = planInstall(request({ harnesses: defs.filter((d) => d.id === 'claude-code'), transport: 'http' }))
    const value = JSON.parse(plan.changes[0]!.after!)
    expect(value.hooks.PreToolUse[1].hooks[0]).toEqual({ type: 'http', url: 'http://127.0.0.1:7878/v1/hooks/claude-code/PreToolUse', headers: { 'X-Svc-Install': plan.installId }, timeout: 10 })
    expect(plan.notes.join('\n')).toMatch(/FAILS OPEN/)
  })
})
