/**
 * `svc mcp wrap|unwrap` on real harness config files in a temp HOME: diff first, comments and layout kept,
 * env and cwd kept, remote servers left alone, idempotent, byte-exact unwrap, an edited entry refused with
 * nothing written; and `svc mcp list` (GET /v1/mcp/servers) shows wrapped, unwrapped and remote servers.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SVC_COMMAND } from '../cli/mcp-wrap/command.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

const CLAUDE = `{
  "numStartups": 3,
  "mcpServers": {
    "github": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_TOKEN": "secret" } },
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp" }
  },
  "projects": { "/work/app": { "mcpServers": { "local": { "command": "node", "env": {} } } } }
}
`
const CODEX = `# my codex config
model = "gpt-5"

[mcp_servers.docs]
command = "docs-server" # the docs one
args = [
  "--port", # inline comment
  "0",
]
cwd = "/srv/docs"

[mcp_servers.docs.env]
TOKEN = "x"

[mcp_servers.web]
url = "https://web.example.com/mcp"
`
const GEMINI = `// Gemini settings
{
  "mcpServers": {
    // the wiki server
    "wiki": {
      "command": "wiki-mcp",
      "args": ["serve"],
      "cwd": "/srv/wiki",
    },
  },
}
`
const CURSOR = `{ "mcpServers": { "files": { "command": "files-mcp", "args": [] } } }\n`

let home: string
let daemon: TestDaemon
const files: Record<string, string> = {}
const env = () => ({ HOME: home, SVC_HOME: join(home, '.svc'), SVC_URL: daemon.url })
const read = (name: string) => readFileSync(files[name]!, 'utf8')

beforeAll(async () => {
  home = tempDir('svc-mcp-wrap-')
  files.claude = join(home, '.claude.json')
  files.codex = join(home, '.codex', 'config.toml')
  files.gemini = join(home, '.gemini', 'settings.json')
  files.cursor = join(home, '.cursor', 'mcp.json')
  for (const dir of ['.codex', '.gemini', '.cursor']) mkdirSync(join(home, dir))
  writeFileSync(files.claude, CLAUDE)
  writeFileSync(files.codex, CODEX)
  writeFileSync(files.gemini, GEMINI)
  writeFileSync(files.cursor!, CURSOR)
  daemon = await startTestDaemon({ home: join(home, '.svc'), env: { SVC_USER_HOME: home } })
})

afterAll(async () => {
  await daemon?.stop()
})

describe('svc mcp wrap / unwrap', () => {
  it('shows the diff and changes nothing on --dry-run', async () => {
    const res = await runCli(['mcp', 'wrap', '--dry-run', '--repo', '/nonexistent'], env())
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('+    "github": { "type": "stdio", "command": ')
    expect(res.stdout).toContain('mcp-proxy')
    expect(read('claude')).toBe(CLAUDE)
    expect(read('codex')).toBe(CODEX)
  })

  it('svc install --mcp shows the same wrap before the hook entries (dry run: nothing written)', async () => {
    const res = await runCli(['install', '--mcp', '--dry-run', '--harness', 'cursor'], env())
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('"args": ["mcp-proxy", "--server", "files", "--harness", "cursor", "--", "files-mcp"]')
    expect(res.stdout).toContain('hooks.json')
    expect(read('cursor')).toBe(CURSOR)
  })

  it('wraps every stdio server through the proxy, keeping env, cwd and comments; remote ones stay', async () => {
    const res = await runCli(['mcp', 'wrap', '--yes', '--repo', '/nonexistent'], env())
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('wrapped github')
    const claude = JSON.parse(read('claude'))
    expect(claude.mcpServers.github).toEqual({
      type: 'stdio',
      command: SVC_COMMAND,
      args: ['mcp-proxy', '--server', 'github', '--harness', 'claude-code', '--', 'npx', '-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_TOKEN: 'secret' },
    })
    expect(claude.mcpServers.remote).toEqual({ type: 'http', url: 'https://mcp.example.com/mcp' })
    expect(claude.projects['/work/app'].mcpServers.local).toEqual({
      command: SVC_COMMAND,
      args: ['mcp-proxy', '--server', 'local', '--harness', 'claude-code', '--', 'node'],
      env: {},
    })
    const codex = parseToml(read('codex')) as any
    expect(codex.mcp_servers.docs).toMatchObject({
      command: SVC_COMMAND,
      args: ['mcp-proxy', '--server', 'docs', '--harness', 'codex', '--', 'docs-server', '--port', '0'],
      cwd: '/srv/docs',
      env: { TOKEN: 'x' },
    })
    expect(codex.mcp_servers.web).toEqual({ url: 'https://web.example.com/mcp' })
    expect(read('codex')).toContain('# my codex config')
    expect(read('codex')).toContain('# the docs one')
    const gemini = read('gemini')
    expect(gemini).toContain('// the wiki server')
    expect(parseJsonc(gemini).mcpServers.wiki).toEqual({
      command: SVC_COMMAND,
      args: ['mcp-proxy', '--server', 'wiki', '--harness', 'gemini', '--', 'wiki-mcp', 'serve'],
      cwd: '/srv/wiki',
    })
    expect(JSON.parse(read('cursor')).mcpServers.files.args).toEqual(['mcp-proxy', '--server', 'files', '--harness', 'cursor', '--', 'files-mcp'])
  })

  it('is idempotent', async () => {
    const before = Object.keys(files).map(read)
    const res = await runCli(['mcp', 'wrap', '--yes', '--repo', '/nonexistent'], env())
    expect(res.stdout).toContain('no MCP server to wrap')
    expect(Object.keys(files).map(read)).toEqual(before)
  })

  it('lists configured servers: wrapped ones governed, remote ones ungoverned, with the real command as identity', async () => {
    const res = await runCli(['mcp', 'list', '--json'], env())
    expect(res.code).toBe(0)
    const servers = JSON.parse(res.stdout) as any[]
    const byName = new Map(servers.map((s) => [s.name, s]))
    expect(byName.get('github')).toMatchObject({
      harness: 'claude-code',
      wrapped: true,
      governed: true,
      identity: { command: 'npx', envNames: ['GITHUB_TOKEN'] },
      pin: { state: 'unseen' },
    })
    expect(byName.get('remote')).toMatchObject({ transport: 'http', wrapped: false, governed: false })
    expect(byName.get('remote').ungoverned_reason).toContain('remote server')
    expect(byName.get('web')).toMatchObject({ harness: 'codex', governed: false })
    expect(byName.get('docs')).toMatchObject({ wrapped: true, identity: { command: 'docs-server', args: ['--port', '0'], cwd: '/srv/docs' } })
    expect(JSON.stringify(servers)).not.toContain('secret')
    const text = await runCli(['mcp', 'list'], env())
    expect(text.stdout).toMatch(/remote\thttp\tUNGOVERNED/)
  })

  it('refuses to unwrap an entry edited since, writing nothing', async () => {
    const edited = read('cursor').replace('"files-mcp"', '"other-mcp"')
    writeFileSync(files.cursor!, edited)
    const before = Object.keys(files).map(read)
    const res = await runCli(['mcp', 'unwrap', '--yes', '--repo', '/nonexistent'], env())
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('was edited since svc wrapped it')
    expect(Object.keys(files).map(read)).toEqual(before)
    writeFileSync(files.cursor!, edited.replace('"other-mcp"', '"files-mcp"'))
  })

  it('unwraps one server, then all, back to the exact bytes', async () => {
    const one = await runCli(['mcp', 'unwrap', 'wiki', '--yes', '--repo', '/nonexistent'], env())
    expect(one.code).toBe(0)
    expect(read('gemini')).toBe(GEMINI)
    expect(JSON.parse(read('claude')).mcpServers.github.command).toBe(SVC_COMMAND)
    const all = await runCli(['mcp', 'unwrap', '--yes', '--repo', '/nonexistent'], env())
    expect(all.code).toBe(0)
    expect(read('claude')).toBe(CLAUDE)
    expect(read('codex')).toBe(CODEX)
    expect(read('cursor')).toBe(CURSOR)
  })
})
