import { describe, expect, it } from 'vitest'
import { harnessSuite } from '../../test/helpers/harness.ts'
import gemini from './index.ts'
import { splitGeminiMcpName } from './tools.ts'

const { h, fixture, parses, renders } = harnessSuite(gemini, import.meta.url)

describe('gemini parse', () => {
  it('maps the captured run_shell_command onto Bash', () => {
    const parsed = h.parse('BeforeTool', fixture('before-tool.captured'))
    expect(parsed).toMatchObject({
      kind: 'call',
      call: {
        source: 'gemini',
        tool: 'Bash',
        input: { command: 'cat ~/.ssh/id_rsa' },
        cwd: '/home/u/work',
        meta: { harness_session_id: '4e8ee8bc-6e7a-4afa-b74f-694edf96e1ca', native_tool: 'run_shell_command' },
      },
    })
    expect(parsed.kind === 'call' && parsed.call.toolUseId).toMatch(/^gemini-[0-9a-f]{24}$/)
    expect(parsed).toMatchObject({ derivedId: true })
  })
  it('links AfterTool to its BeforeTool by a derived id and sees the error', () => {
    const before = h.parse('BeforeTool', fixture('before-tool.captured'))
    const after = h.parse('AfterTool', fixture('after-tool'))
    expect(after).toMatchObject({ kind: 'outcome', outcome: 'tool_errored' })
    expect(after.kind === 'outcome' && after.call.toolUseId).toBe(before.kind === 'call' && before.call.toolUseId)
  })
  it('maps read_file/replace to Read/Edit with an absolute file_path', () => {
    const read = h.parse('BeforeTool', fixture('before-tool.read-file'))
    expect(read.kind === 'call' && [read.call.tool, read.call.input.file_path]).toEqual(['Read', '/home/u/.ssh/id_ed25519'])
    const edit = h.parse('BeforeTool', fixture('before-tool.replace'))
    expect(edit.kind === 'call' && edit.call.input).toMatchObject({ file_path: '/home/u/app/a.ts', old_string: 'a', new_string: 'b' })
    expect(edit.kind === 'call' && edit.call.tool).toBe('Edit')
  })
  parses(
    {
      'names MCP tools mcp__<server>__<tool> from mcp_context and keeps the context': [
        ['BeforeTool', fixture('before-tool.mcp'), { kind: 'call', call: { tool: 'mcp__github__create_issue', meta: { mcp_context: { server_name: 'github', command: 'npx' } } } }],
      ],
    },
    { partial: true },
  )
  it('splits Gemini MCP tool names into server and tool', () => {
    expect(splitGeminiMcpName('mcp_fs_read_text')).toEqual({ server: 'fs', tool: 'read_text' })
    expect(splitGeminiMcpName('mcp_')).toBeUndefined()
  })
})

describe('gemini render', () => {
  renders({
    'denies with decision/reason': [
      [
        'BeforeTool',
        { verdict: 'deny', ruleId: 'ssh-keys', reason: 'private keys are off limits', nudge: 'Ask the user.' },
        '{"decision":"deny","reason":"private keys are off limits [svc rule ssh-keys] Ask the user."}',
      ],
    ],
    'allows with {} (no explicit allow)': [
      ['BeforeTool', { verdict: 'allow', ruleId: '', reason: '' }, '{}'],
      ['AfterTool', undefined, '{}'],
    ],
  })
})

describe('gemini config locations', () => {
  it('follows GEMINI_CLI_HOME for the user settings, as Gemini CLI does', () => {
    expect(gemini.harness.configLocations({ home: '/home/u', env: { GEMINI_CLI_HOME: '/elsewhere' } }).map((l) => l.path)).toContain('/elsewhere/.gemini/settings.json')
    expect(gemini.harness.configLocations({ home: '/home/u', env: {} }).map((l) => l.path)).toContain('/home/u/.gemini/settings.json')
  })
})
