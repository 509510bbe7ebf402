import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendToArray, indexOfEqual, removeAt, valueAt } from './jsonc-edit.ts'

const key = fc.constantFrom('hooks', 'PreToolUse', 'a', 'b')
const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.boolean(), fc.constant(null))
const tree = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { minLength: 1, maxLength: 3 }), fc.dictionary(key, tie('node'), { minKeys: 1, maxKeys: 3 })),
})).node
const doc = fc.dictionary(key, tree, { maxKeys: 4 })

function render(value: unknown, indent: string, eol: string, comment: boolean): string {
  const text = JSON.stringify(value, null, indent).split('\n').join(eol)
  return comment ? text.replace('{', `{${eol}${indent}// a user comment${eol}`) : text
}

/** Whether appending at `pointer` is allowed and every existing container on the way is non-empty. */
function appendable(value: unknown, pointer: readonly string[]): boolean {
  let node: unknown = value
  for (const [i, k] of pointer.entries()) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return false
    if (i > 0 && Object.keys(node).length === 0) return false
    if (!(k in node)) return true
    node = (node as Record<string, unknown>)[k]
  }
  return Array.isArray(node) && node.length > 0
}

describe('JSONC edits', () => {
  it('append then remove gives back the exact bytes (any layout, comments, CRLF)', () => {
    fc.assert(
      fc.property(
        doc,
        fc.array(key, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('  ', '    ', '\t'),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        (value, pointer, indent, eol, comment) => {
          fc.pre(appendable(value, pointer))
          const text = render(value, indent, eol, comment) + eol
          const ours = { matcher: '*', hooks: [{ type: 'command', command: 'svc-hook --svc-install=x' }] }
          const after = appendToArray(text, pointer, ours)
          const array = valueAt(after, pointer) as unknown[]
          expect(array.at(-1)).toEqual(ours)
          if (comment) expect(after).toContain('// a user comment')
          expect(removeAt(after, pointer, indexOfEqual(after, pointer, ours))).toBe(text)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('keeps a comment inside an empty container', () => {
    const text = '{\n  "hooks": { // none yet\n  }\n}\n'
    const after = appendToArray(text, ['hooks', 'PreToolUse'], 1)
    expect(after).toBe('{\n  "hooks": { // none yet\n    "PreToolUse": [\n      1\n    ]\n  }\n}\n')
    expect(removeAt(after, ['hooks', 'PreToolUse'], 0)).toContain('// none yet')
  })

  it('follows an inline layout, tolerates a trailing comma, and refuses non-arrays', () => {
    expect(appendToArray('{"x": [1, 2]}', ['x'], 3)).toBe('{"x": [1, 2, 3]}')
    const trailing = appendToArray('{\n  "x": [\n    1,\n  ]\n}', ['x'], 2)
    expect(valueAt(trailing, ['x'])).toEqual([1, 2])
    expect(() => appendToArray('{"x": 1}', ['x'], 2)).toThrow(/not an array/)
    expect(() => appendToArray('[]', ['x'], 2)).toThrow(/not a JSON object/)
  })
})
