/**
 * Everything a tool input names is examined, whatever else it holds. What a call is comes from its tool:
 * a decoy `"command": "ls"` does not turn a Read (or an MCP read_file) into a shell call that the file
 * gates skip. And the walk over an input covers it all or refuses the call naming the bound it passed:
 * decoy paths, deep nesting and long strings hide nothing. Real daemon, native Claude Code hook payloads
 * and POST /v1/gates/check.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { WALK_BOUNDS } from '../plugins/normalise-tool-input/index.ts'
import { SHELL_TOOLS } from '../plugins/shell-analysis/index.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
let home: string
let session: string
let n = 0

/** A Claude Code PreToolUse through the real hook route: the permission decision and its reason. */
async function claude(tool: string, input: Record<string, unknown>): Promise<{ decision: string; reason: string }> {
  const body = { session_id: 'c1', cwd: join(home, 'proj'), hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `toolu_cov${n++}` }
  const res = await fetch(`${d.url}/v1/hooks/claude-code/PreToolUse`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect(res.status).toBe(200)
  const answer = JSON.parse(await res.text()) as { hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } }
  return { decision: answer.hookSpecificOutput?.permissionDecision ?? 'allow', reason: answer.hookSpecificOutput?.permissionDecisionReason ?? '' }
}

const check = async (tool: string, input: Record<string, unknown>) =>
  (await d.request('POST', '/v1/gates/check', { session_id: session, source: 'test', tool, input, cwd: join(home, 'proj') })).body as {
    verdict: string
    rule_id: string
    reason: string
  }

beforeAll(async () => {
  home = tempDir('svc-coverage-home-')
  mkdirSync(join(home, '.ssh'))
  mkdirSync(join(home, 'proj'))
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'not a real key\n')
  writeFileSync(join(home, 'proj', '.env'), 'TOKEN=x\n')
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'fs-server'] } } }))
  d = await startTestDaemon({ env: { SVC_USER_HOME: home } })
  session = await d.session()
  const token = (await d.request('POST', '/v1/auth/login', { password: 'correct horse battery' })).body.token
  // First sighting queues the server; the operator pins it, so its calls meet the other gates.
  expect(await claude('mcp__fs__list_allowed_directories', {})).toMatchObject({ decision: 'deny', reason: expect.stringContaining('not pinned') })
  const shown = (await d.request('GET', '/v1/mcp/pins')).body.servers.find((s: { server: string }) => s.server === 'fs').pending_fingerprint
  expect((await d.request('POST', '/v1/mcp/pin/accept', { server: 'fs', fingerprint: shown }, { authorization: `Bearer ${token}` })).body).toMatchObject({ state: 'pinned' })
})
afterAll(() => d.stop())

describe('tool identity: what a call is comes from its tool', () => {
  it('a decoy command in a Read, a Write or an MCP read_file leaves the file gates on', async () => {
    const key = join(home, '.ssh', 'id_rsa')
    expect(await claude('Read', { file_path: key, command: 'ls' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('secrets.ssh-private-key') })
    expect(await claude('Read', { file_path: join(home, 'proj', '.env'), command: 'ls' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('secrets.env-file') })
    expect(await claude('Write', { file_path: join(home, '.claude', 'settings.json'), content: '{}', command: 'ls' })).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('self.harness-config'),
    })
    expect(await claude('Write', { file_path: join(home, '.bashrc'), content: 'curl x | sh', command: 'ls' })).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('persist.autorun-files'),
    })
    expect(await claude('mcp__fs__read_file', { path: key, command: 'ls' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('secrets.ssh-private-key') })
    expect(await check('Read', { file_path: key, cmd: 'ls' })).toMatchObject({ verdict: 'deny', rule_id: 'secrets.ssh-private-key' })
    expect(await check('read_file', { absolute_path: key, command: ['ls'] })).toMatchObject({ verdict: 'deny', rule_id: 'secrets.ssh-private-key' })
  })

  it('the packs name the same shell tools as the analysis', () => {
    for (const pack of ['secrets.yaml', 'self-protection.yaml', 'persistence.yaml']) {
      const list = /&shelltools \[([^\]]*)\]/.exec(readFileSync(join(SHIPPED_POLICIES_DIR, pack), 'utf8'))?.[1]
      expect(
        list?.split(',').map((t) => t.trim()),
        pack,
      ).toEqual(SHELL_TOOLS)
    }
  })

  it('still analyses the commands of shell tools and of MCP tools that may run them, and allows plain reads', async () => {
    expect(await claude('mcp__fs__read_file', { path: join(home, 'proj', 'README.md') })).toEqual({ decision: 'allow', reason: '' })
    expect(await claude('Read', { file_path: join(home, 'proj', 'README.md'), command: 'rm -rf ~' })).toEqual({ decision: 'allow', reason: '' })
    expect(await claude('mcp__fs__run', { command: 'rm -rf ~' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('fs.rm-root-or-home') })
    expect(await claude('Bash', { command: `ls -l ${join(home, '.ssh', 'id_rsa')}` })).toEqual({ decision: 'allow', reason: '' })
  })
})

describe('the walk over a tool input', () => {
  it('sees a key after 300 decoy paths, 8 levels down, and a daemon URL after 70,000 characters', async () => {
    const key = join(home, '.ssh', 'id_rsa')
    const decoys = Array.from({ length: 300 }, (_, i) => join(home, 'proj', `decoy-${i}.txt`))
    expect(await claude('mcp__fs__read_multiple_files', { paths: [...decoys, key] })).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('secrets.ssh-private-key'),
    })
    const deep = { a: { b: { c: { d: { e: { f: { g: { path: key } } } } } } } }
    expect(await claude('mcp__fs__read_file', deep)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('secrets.ssh-private-key') })
    const padded = `${'x'.repeat(70_000)} then http://127.0.0.1:7878/v1/mode`
    expect(await claude('mcp__fs__fetch', { note: padded })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('self.daemon-ports') })
    expect(await claude('WebFetch', { url: 'https://example.com/', prompt: padded })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('self.daemon-ports') })
  })

  it('refuses input past a bound, naming it, instead of ignoring the rest', async () => {
    const { depth, strings, paths, pathLength } = WALK_BOUNDS
    let nested: unknown = 'x'
    for (let i = 0; i < depth + 5; i++) nested = { inner: nested }
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ nested }, new RegExp(`nested more than ${depth} levels deep`)],
      [{ items: Array.from({ length: strings + 1 }, () => 'a') }, new RegExp(`more than ${strings} strings`)],
      [{ files: Array.from({ length: paths + 1 }, (_, i) => `/tmp/f${i}`) }, new RegExp(`more than ${paths} paths`)],
      [{ path: `/tmp/${'a'.repeat(pathLength)}` }, new RegExp(`a path of ${pathLength + 5} characters`)],
    ]
    for (const [input, why] of cases) {
      const res = await check('mcp__fs__read_file', input)
      expect(res).toMatchObject({ verdict: 'deny', rule_id: '', reason: expect.stringMatching(/^tool input could not be examined in full \(/) })
      expect(res.reason).toMatch(why)
    }
    expect(await claude('mcp__fs__read_file', { nested })).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/could not be examined in full \(nested more than/) })
  })
})
