import { describe, expect, it } from 'vitest'
import { harnessSuite } from '../../test/helpers/harness.ts'
import copilot from './index.ts'
import { splitCopilotMcpName } from './tools.ts'

const { h, fixture, parses, renders } = harnessSuite(copilot, import.meta.url)

describe('copilot-cli parse', () => {
  it('maps the captured bash call onto Bash with a derived id', () => {
    const parsed = h.parse('preToolUse', fixture('pre-tool-use.captured'))
    expect(parsed).toMatchObject({
      kind: 'call',
      derivedId: true,
      call: {
        source: 'copilot-cli',
        tool: 'Bash',
        input: { command: 'echo hi > marker.txt; ls', description: 'scripted' },
        cwd: '/tmp/cph2/work',
        meta: { harness_session_id: '3b227629-f9c1-4d98-a655-501782540327', native_tool: 'bash' },
      },
    })
    expect(parsed.kind === 'call' && parsed.call.toolUseId).toMatch(/^copilot-[0-9a-f]{24}$/)
  })
  it('links the captured postToolUse to its preToolUse and reads resultType', () => {
    const before = h.parse('preToolUse', fixture('pre-tool-use.captured'))
    const after = h.parse('postToolUse', fixture('post-tool-use.captured'))
    expect(after).toMatchObject({ kind: 'outcome', outcome: 'ran' })
    expect(after.kind === 'outcome' && after.call.toolUseId).toBe(before.kind === 'call' && before.call.toolUseId)
    const failed = { ...fixture('post-tool-use.captured'), toolResult: { resultType: 'failure', textResultForLlm: 'boom' } }
    expect(h.parse('postToolUse', failed)).toMatchObject({ kind: 'outcome', outcome: 'tool_errored' })
    expect(h.parse('postToolUse', { ...failed, toolResult: { resultType: 'denied' } })).toMatchObject({ kind: 'ignore' })
  })
  parses(
    {
      'names the captured MCP call <server>-<tool> as mcp__<server>__<tool>': [
        ['preToolUse', fixture('pre-tool-use.mcp.captured'), { kind: 'call', call: { tool: 'mcp__fx__echo', input: { text: 'hi' } } }],
      ],
      'maps view/edit onto Read/Edit with an absolute file_path': [
        ['preToolUse', fixture('pre-tool-use.view'), { kind: 'call', call: { tool: 'Read', input: { file_path: '/home/u/.ssh/id_ed25519' } } }],
        ['preToolUse', fixture('pre-tool-use.edit'), { kind: 'call', call: { tool: 'Edit', input: { file_path: '/home/u/work/a.ts', old_string: 'a', new_string: 'b' } } }],
      ],
      'takes toolArgs as a JSON string too (the documented older form)': [
        ['preToolUse', fixture('pre-tool-use.string-args'), { kind: 'call', call: { tool: 'Bash', input: { command: 'rm -rf dist' } } }],
      ],
      'ignores events it does not gate': [['sessionStart', { sessionId: 's', cwd: '/' }, { kind: 'ignore' }]],
    },
    { partial: true },
  )
  it('refuses a payload without a tool name', () => {
    expect(() => h.parse('preToolUse', { cwd: '/', toolArgs: {} })).toThrow(/toolName/)
  })
  it('splits MCP names on the first dash', () => {
    expect(splitCopilotMcpName('github-get_issue')).toEqual({ server: 'github', tool: 'get_issue' })
    expect(splitCopilotMcpName('report_intent')).toBeUndefined()
  })
})

describe('copilot-cli render', () => {
  renders({
    'denies with permissionDecision and the reason': [
      [
        'preToolUse',
        { verdict: 'deny', ruleId: 'secrets.ssh-private-key', reason: 'private keys are off limits', nudge: 'Ask the user.' },
        '{"permissionDecision":"deny","permissionDecisionReason":"private keys are off limits [svc rule secrets.ssh-private-key] Ask the user."}',
      ],
    ],
    'allows with {} (no explicit allow, which would skip Copilot’s own prompt)': [
      ['preToolUse', { verdict: 'allow', ruleId: '', reason: '' }, '{}'],
      ['postToolUse', undefined, '{}'],
    ],
  })
})

describe('copilot-cli config', () => {
  it('follows COPILOT_HOME for hooks, MCP and settings', () => {
    const paths = h.configLocations({ home: '/home/u', env: { COPILOT_HOME: '/elsewhere' } }).map((l) => l.path)
    expect(paths).toEqual(['/elsewhere/hooks/svc.json', '/elsewhere/mcp-config.json'])
    expect(h.hookSwitches?.userFiles({ home: '/home/u', env: {} })).toContain('/home/u/.copilot/settings.json')
  })
  it('finds disableAllHooks in a settings file with comments', () => {
    expect(h.hookSwitches?.found('// mine\n{ "disableAllHooks": true }')).toEqual(['disableAllHooks: true'])
    expect(h.hookSwitches?.found('{ "disableAllHooks": false }')).toEqual([])
  })
  it('reads user and repository MCP servers', () => {
    const files: Record<string, string> = {
      '/home/u/.copilot/mcp-config.json': '{"mcpServers":{"fx":{"type":"local","command":"node","args":["s.js"],"env":{"T":"secret"}}}}',
      '/r/.github/mcp.json': '{"mcpServers":{"docs":{"type":"http","url":"https://x.example/mcp"}}}',
    }
    const servers = h.mcpServers({ home: '/home/u', repo: '/r', env: {} }, (p) => files[p])
    expect(servers.map((s) => [s.name, s.transport])).toEqual([
      ['fx', 'stdio'],
      ['docs', 'http'],
    ])
    expect(JSON.stringify(servers)).not.toContain('secret')
  })
})
