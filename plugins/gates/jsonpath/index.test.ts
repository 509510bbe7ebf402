import { JSONPath } from 'jsonpath-plus'
import { describe, expect, it } from 'vitest'
import { runGateCases } from '../../../testing/gate-tester.ts'
import jsonpath, { selector } from './index.ts'

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
      {
        value: { path: '$.edits[*].new_string', matches: 'AKIA[0-9A-Z]{16}' },
        request: { tool: 'MultiEdit', input: { edits: [{ new_string: 'x' }, { new_string: 'key=AKIAABCDEFGHIJKLMNOP' }] } },
      },
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

describe('jsonpath member selector', () => {
  it('selects `$.name` as jsonpath-plus does (own members only, null and false kept, nothing from the prototype)', () => {
    const inputs: Record<string, unknown>[] = [
      {},
      { a: 1 },
      { a: null },
      { a: false },
      { a: [1, 2] },
      { a: { b: 1 } },
      { b: 'x' },
      { a_1: 'y' },
      JSON.parse('{"__proto__": {"a": 1}}'),
      Object.create({ a: 'inherited' }),
    ]
    for (const path of ['$.a', '$.a_1', '$.constructor', '$.toString', '$.__proto__', '$.b']) {
      for (const input of inputs) expect(selector(path)(input), `${path} of ${JSON.stringify(input)}`).toEqual(JSONPath({ path, json: input, eval: false, wrap: true }))
    }
  })
})
