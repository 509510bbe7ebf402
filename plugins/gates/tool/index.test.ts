import { describe, it } from 'vitest'
import { runGateCases } from '../../../testing/gate-tester.ts'
import tool from './index.ts'

runGateCases(
  tool,
  {
    pass: [
      { value: 'Bash', request: { tool: 'Read' } },
      { value: 'Bash', request: { tool: 'bash' } },
      { value: ['Read', 'Write'], request: { tool: 'Edit' } },
      { value: 'mcp__github__*', request: { tool: 'mcp__gitlab__create' } },
    ],
    flag: [
      { value: 'Bash', request: { tool: 'Bash' }, reason: 'tool Bash' },
      { value: '*', request: { tool: 'anything' } },
      { value: ['Read', 'Write'], request: { tool: 'Write' }, reason: 'tool Write' },
      { value: 'mcp__github__*', request: { tool: 'mcp__github__create_issue' } },
      { value: '{Read,Grep}', request: { tool: 'Grep' } },
    ],
    badConfig: [
      { value: 'mcp__{a', message: /unclosed/ },
      { value: [], message: /schema: value must/ },
      { value: '', message: /schema: value must/ },
    ],
  },
  { describe, it },
)
