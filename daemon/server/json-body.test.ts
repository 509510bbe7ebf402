import { describe, expect, it } from 'vitest'
import { duplicateKey } from './json-body.ts'

describe('duplicateKey', () => {
  it('finds a key twice in one object, at any depth, also when spelled with escapes', () => {
    expect(duplicateKey('{"tool_name":"Read","tool_input":{},"tool_name":"Bash"}')).toBe('tool_name')
    expect(duplicateKey('{"a":[{"b":1,"c":{"d":"x","d":"y"}}]}')).toBe('d')
    expect(duplicateKey('{"command":"ls","\\u0063ommand":"rm -rf ~"}')).toBe('command')
  })

  it('accepts the same key in different objects and keys inside string values', () => {
    expect(duplicateKey('[{"a":1},{"a":1}]')).toBeUndefined()
    expect(duplicateKey('{"a":"{\\"a\\":1,\\"a\\":2}","b":{"a":2}}')).toBeUndefined()
    expect(duplicateKey('{"a\\"":1,"a":2,"s":"\\\\","t":"\\\\\\""}')).toBeUndefined()
  })
})
