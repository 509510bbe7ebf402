import { describe, it } from 'vitest'
import { runGateCases } from '../../../testing/gate-tester.ts'
import mcp from './index.ts'

runGateCases(
  mcp,
  {
    pass: [
      { value: { server: 'github' }, request: { tool: 'Bash' } },
      { value: { server: 'github', tool: 'delete_*' }, request: { tool: 'mcp__github__create_issue', mcp: { server: 'github', tool: 'create_issue' } } },
    ],
    flag: [
      { value: { server: 'github' }, request: { tool: 'mcp__github__create_issue', mcp: { server: 'github', tool: 'create_issue' } } },
      { value: { tool: 'delete_*' }, request: { tool: 'mcp__fs__delete_file', mcp: { server: 'fs', tool: 'delete_file' } } },
    ],
    badConfig: [{ value: { server: '{x' }, message: /unclosed/ }],
  },
  { describe, it },
)
