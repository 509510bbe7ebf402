import { describe, expect, it } from 'vitest'
import { serversFromCodexToml, serversFromJsonMap } from './mcp-entries.ts'

describe('MCP config entries', () => {
  it('reads Codex [mcp_servers] tables with env and header names', () => {
    const [s] = serversFromCodexToml('[mcp_servers.docs]\nurl = "https://x.example/mcp"\nbearer_token_env_var = "DOCS"\nhttp_headers = { "X-Team" = "a" }\n', '/c')
    expect(s).toMatchObject({ name: 'docs', transport: 'http', url: 'https://x.example/mcp', headerNames: ['Authorization', 'X-Team'] })
  })

  it('keeps env and header names, never their values', () => {
    const [s] = serversFromJsonMap({ gh: { command: 'npx', env: { TOKEN: 'secret' }, headers: { Authorization: 'Bearer x' } } }, 'test-harness', '/a')
    expect(JSON.stringify(s)).not.toMatch(/secret|Bearer/)
    expect(s).toMatchObject({ name: 'gh', transport: 'stdio', command: 'npx', envNames: ['TOKEN'] })
  })
})
