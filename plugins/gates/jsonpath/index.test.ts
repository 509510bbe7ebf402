import { describe, it } from 'vitest'
import { runGateCases } from '../../../core/testing/gate-tester.ts'
import jsonpath from './index.ts'

runGateCases(
  jsonpath,
  {
    pass: [
      { value: { path: '$.run_in_background', equals: true }, request: { tool: 'Bash', input: { run_in_background: false } } },
      { value: { path: '$.edits[*].new_string', matches: 'AKIA[0-9A-Z]{16}' }, request: { tool: 'MultiEdit', input: { edits: [{ new_string: 'hello' }] } } },
      { value: { path: '$.timeout', exists: true }, request: { tool: 'Bash', input: {} } },
    ],
    flag: [
      { value: { path: '$.run_in_background', equals: true }, request: { tool: 'Bash', input: { run_in_background: true } } },
      { value: { path: '$.edits[*].new_string', matches: 'AKIA[0-9A-Z]{16}' }, request: { tool: 'MultiEdit', input: { edits: [{ new_string: 'x' }, { new_string: 'key=AKIAABCDEFGHIJKLMNOP' }] } } },
      { value: { path: '$.timeout', exists: false }, request: { tool: 'Bash', input: { command: 'ls' } } },
    ],
    badConfig: [
      { value: { path: '$.a' }, message: /needs one of/ },
      { value: { path: '$..[?(@.x)]', exists: true }, message: /not allowed/ },
      { value: { path: '$.a', matches: '(?<=x)' }, message: /unsupported|invalid/ },
    ],
  },
  { describe, it },
)
