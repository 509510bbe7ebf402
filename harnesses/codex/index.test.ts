import { describe } from 'vitest'
import { harnessSuite } from '../../test/helpers/harness.ts'
import codex from './index.ts'

const { fixture, parses, renders } = harnessSuite(codex, import.meta.url)

describe('codex parse', () => {
  parses({
    'parses the documented PreToolUse payload': [
      [
        'PreToolUse',
        fixture('pre-tool-use'),
        {
          kind: 'call',
          call: {
            source: 'codex',
            tool: 'Bash',
            input: { command: 'rm -rf ~/.ssh' },
            cwd: '/home/u/app',
            toolUseId: 'call_9',
            meta: { harness_session_id: '0199', permission_mode: 'default' },
          },
        },
      ],
    ],
  })
  parses(
    {
      'maps apply_patch onto Edit with every touched path made absolute': [
        [
          'PreToolUse',
          fixture('pre-tool-use.apply-patch'),
          {
            kind: 'call',
            call: { tool: 'Edit', input: { file_path: '/home/u/app/src/app.ts', file_paths: ['/home/u/app/src/app.ts', '/home/u/.bashrc'] }, meta: { native_tool: 'apply_patch' } },
          },
        ],
      ],
      'turns argv-array shell commands into command text gates can match': [
        [
          'PreToolUse',
          { ...fixture('pre-tool-use'), tool_name: 'shell', tool_input: { command: ['bash', '-lc', 'rm -rf ~/.ssh'] } },
          { kind: 'call', call: { tool: 'Bash', input: { command: 'rm -rf ~/.ssh' } } },
        ],
        [
          'PreToolUse',
          { ...fixture('pre-tool-use'), tool_input: { command: ['git', 'commit', '-m', "it's done"] } },
          { kind: 'call', call: { input: { command: `git commit -m 'it'\\''s done'` } } },
        ],
      ],
      'records PostToolUse as a ran outcome and ignores unknown fields': [
        ['PostToolUse', fixture('post-tool-use'), { kind: 'outcome', outcome: 'ran', call: { toolUseId: 'call_9', tool: 'Bash' } }],
      ],
    },
    { partial: true },
  )
})

describe('codex render', () => {
  renders({
    'denies with a non-empty reason': [
      [
        'PreToolUse',
        { verdict: 'deny', ruleId: 'fs-01', reason: 'deleting ~/.ssh is blocked' },
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"deleting ~/.ssh is blocked [svc rule fs-01]"}}',
      ],
    ],
    'allows with an EMPTY body (Codex rejects a bare allow)': [
      ['PreToolUse', { verdict: 'allow', ruleId: '', reason: '' }, ''],
      ['PostToolUse', undefined, ''],
    ],
  })
})
