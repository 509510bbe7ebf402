import { describe, expect, it } from 'vitest'
import { harnessSuite } from '../../test/helpers/harness.ts'
import claude from './index.ts'

const { h, fixture, parses, renders } = harnessSuite(claude, import.meta.url)

describe('claude-code parse', () => {
  parses({
    'parses the captured PreToolUse payload (extra fields ignored)': [
      [
        'PreToolUse',
        fixture('pre-tool-use.captured'),
        {
          kind: 'call',
          call: {
            source: 'claude-code',
            tool: 'Bash',
            input: { command: 'cat ~/.ssh/id_rsa', description: 'read key' },
            cwd: '/home/u/work',
            toolUseId: 'toolu_mock01',
            meta: { harness_session_id: '5e8de91a-ac12-4edf-9366-1da8e4df5f54', permission_mode: 'default' },
          },
        },
      ],
    ],
  })
  it('keeps file tools and MCP names as the policy spells them', () => {
    const write = h.parse('PreToolUse', fixture('pre-tool-use.write'))
    expect(write.kind === 'call' && [write.call.tool, write.call.input.file_path]).toEqual(['Write', '/home/u/app/.svc.yaml'])
    const mcp = h.parse('PreToolUse', fixture('pre-tool-use.mcp'))
    expect(mcp.kind === 'call' && mcp.call.tool).toBe('mcp__github__create_issue')
  })
  parses(
    {
      'turns post events into outcome rows linked by tool_use_id': [
        ['PostToolUse', fixture('post-tool-use'), { kind: 'outcome', outcome: 'ran', call: { toolUseId: 'toolu_01AbC' } }],
        ['PostToolUseFailure', fixture('post-tool-use-failure'), { kind: 'outcome', outcome: 'tool_errored', call: { toolUseId: 'toolu_04' } }],
      ],
      'attributes Cursor-shaped bodies on the Claude route to cursor': [
        ['PreToolUse', fixture('pre-tool-use.cursor-third-party'), { kind: 'call', call: { source: 'cursor', tool: 'Bash', toolUseId: 't9', meta: { via: 'claude-code-hook' } } }],
      ],
    },
    { partial: true },
  )
  it('rejects a payload without a tool name and ignores unknown events', () => {
    expect(() => h.parse('PreToolUse', { tool_input: {} })).toThrow(/tool_name/)
    expect(() => h.parse('PreToolUse', { tool_name: 'Bash', tool_input: 7 })).toThrow(/tool_input/)
    expect(h.parse('Notification', { message: 'x' })).toMatchObject({ kind: 'ignore' })
  })
})

describe('claude-code render', () => {
  renders({
    'denies with hookSpecificOutput and carries the nudge in the reason': [
      [
        'PreToolUse',
        { verdict: 'deny', ruleId: 'ssh-keys', reason: 'reading private keys is blocked', nudge: 'Use ssh-agent instead.' },
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"reading private keys is blocked [svc rule ssh-keys] Use ssh-agent instead."}}',
      ],
    ],
    'answers allow with an empty object, never an explicit allow': [
      ['PreToolUse', { verdict: 'allow', ruleId: '', reason: 'no gate matched' }, '{}'],
      ['PostToolUse', undefined, '{}'],
    ],
  })
})
