/** Wrapping MCP servers whose `command` is one argv array (OpenCode's `mcp` map, as its location's `mcpShape` says). */
import { parse as parseJsonc } from 'jsonc-parser'
import { describe, expect, it } from 'vitest'
import opencode from '../../harnesses/opencode/index.ts'
import { planUnwrap, planWrap, type McpConfigFile } from './plan.ts'

const SVC = '/opt/svc/cli/svc.sh'
const TEXT = `// my OpenCode config
{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    // the docs server
    "docs": { "type": "local", "command": ["npx", "-y", "docs-mcp"], "environment": { "TOKEN": "x" } },
    "web": { "type": "remote", "url": "https://web.example.com/mcp" },
    "bare": {
      "type": "local",
      "command": [
        "bare-mcp", // no arguments
      ],
    },
  },
  "mcpServers": { "other": { "command": "not-opencode" } },
}
`
const { path, mcpShape: shape } = opencode.harness.configLocations({ home: '/home/u', env: {} }).find((l) => l.purpose === 'mcp')!
const file: McpConfigFile = { path, format: 'jsonc', harness: 'opencode', text: TEXT, ...(shape ? { shape } : {}) }

describe('svc mcp wrap on argv commands', () => {
  it('OpenCode’s definition names its `mcp` map and argv commands', () => {
    expect(shape).toEqual({ map: 'mcp', command: 'argv' })
  })

  it('wraps each local server’s whole argv, keeping comments, environment and the remote one', () => {
    const [change] = planWrap([file], SVC)
    expect(change!.records.map((r) => r.server)).toEqual(['docs', 'bare'])
    const after = change!.after
    expect(after).toContain('// the docs server')
    expect(after).toContain('// my OpenCode config')
    const doc = parseJsonc(after)
    expect(doc.mcp.docs).toEqual({
      type: 'local',
      command: [SVC, 'mcp-proxy', '--server', 'docs', '--harness', 'opencode', '--', 'npx', '-y', 'docs-mcp'],
      environment: { TOKEN: 'x' },
    })
    expect(doc.mcp.bare.command).toEqual([SVC, 'mcp-proxy', '--server', 'bare', '--harness', 'opencode', '--', 'bare-mcp'])
    expect(doc.mcp.web).toEqual({ type: 'remote', url: 'https://web.example.com/mcp' })
    // Only the map the shape names: a `mcpServers` key in the same file is not OpenCode's.
    expect(doc.mcpServers.other.command).toBe('not-opencode')
  })

  it('wraps nothing twice, and reads a wrapped entry back as the real server', () => {
    const [change] = planWrap([file], SVC)
    expect(planWrap([{ ...file, text: change!.after }], SVC)).toEqual([])
    const servers = opencode.harness.mcpServers({ home: '/home/u', env: {} }, (p) => (p === file.path ? change!.after : undefined))
    expect(servers.find((s) => s.name === 'docs')).toMatchObject({ command: 'npx', args: ['-y', 'docs-mcp'], wrapped: true, envNames: ['TOKEN'] })
  })

  it('unwraps one server, then the other, back to the exact bytes', () => {
    const [wrapped] = planWrap([file], SVC)
    const [one] = planUnwrap([{ ...file, text: wrapped!.after }], wrapped!.records, 'docs')
    expect(one!.after).toContain('"command": ["npx", "-y", "docs-mcp"]')
    expect(one!.after).not.toBe(TEXT)
    const [all] = planUnwrap([{ ...file, text: one!.after }], wrapped!.records)
    expect(all!.after).toBe(TEXT)
  })

  it('refuses to unwrap an argv edited since it was wrapped', () => {
    const [wrapped] = planWrap([file], SVC)
    const edited = wrapped!.after.replace('"docs-mcp"', '"docs-mcp", "--verbose"')
    expect(() => planUnwrap([{ ...file, text: edited }], wrapped!.records, 'docs')).toThrow(/was edited since svc wrapped it/)
  })
})
