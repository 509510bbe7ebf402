import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileGlob } from './glob.ts'

describe('compileGlob', () => {
  it('answers *X*, X*, *X, **/X, **/*X, **/X*, **/X/** and X/** by string tests exactly as the regex does (oracle: the same glob in one-armed braces)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', '.', '-', ':', '\n', ' '), maxLength: 8 })
    fc.assert(
      fc.property(text.filter((x) => x.length > 0), text, fc.constantFrom('*X*', 'X*', '*X', '**/X', '**/*X', '**/X*', '**/X/**', 'X/**'), fc.boolean(), (x, value, shape, pathMode) => {
        const pattern = shape.replace('X', x)
        expect(compileGlob(pattern, { pathMode }).test(value), `${pattern} ${JSON.stringify(value)}`).toBe(compileGlob(`{${pattern}}`, { pathMode }).test(value))
      }),
      { numRuns: 6000 },
    )
  })

  it.each([
    ['~/.ssh/id_*', '/h/.ssh/id_rsa', false],
    ['/h/.ssh/id_*', '/h/.ssh/id_rsa', true],
    ['/h/.ssh/id_*', '/h/.ssh/sub/id_rsa', false],
    ['/h/**/.env', '/h/a/b/.env', true],
    ['/h/**/.env', '/h/.env', true],
    ['**/', '', true],
    ['a/**/', 'a/', true],
    ['**/.env{,.*}', '/x/.env.local', true],
    ['{Read,Grep}', 'Grep', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['Bash', 'Bash', true],
    ['Bash', 'bash', false],
    ['[!a]x', 'bx', true],
    ['[!a]x', 'ax', false],
  ])('%s ~ %s → %s', (pattern, value, expected) => {
    expect(compileGlob(pattern, { pathMode: true }).test(value)).toBe(expected)
  })

  // Globs compile their regex on first use, except a `[...]` class: a bad class must fail the policy load.
  it('refuses a class RE2 cannot compile when the pattern is compiled, not when it is first tested', () => {
    expect(() => compileGlob('a[z-a]', { pathMode: false })).toThrow(/invalid character class range/)
    expect(() => compileGlob('[z-a]*', { pathMode: true, caseInsensitive: true })).toThrow(/invalid character class range/)
  })

  it('matches multi-line values (DOTALL)', () => {
    expect(compileGlob('*rm -rf*', { pathMode: false }).test('x\nrm -rf ~\n')).toBe(true)
  })

  // The literal fast paths must be necessary conditions only: never a different answer than the regex alone.
  it('answers exactly as the plain RE2 translation for any pattern and value', () => {
    const patternChar = fc.constantFrom('a', 'b', '/', '.', '*', '?', '[', ']', '{', '}', ',', '\\', '!')
    const valueChar = fc.constantFrom('a', 'b', '/', '.', '*', '?', '\n', ',', '\\')
    fc.assert(
      fc.property(
        fc.string({ unit: patternChar, maxLength: 8 }),
        fc.array(fc.string({ unit: valueChar, maxLength: 8 }), { maxLength: 6 }),
        fc.boolean(),
        (pattern, values, pathMode) => {
          let fast
          try {
            fast = compileGlob(pattern, { pathMode })
          } catch {
            return // unbalanced patterns are load errors, not matches
          }
          const plain = compileGlob(pattern, { pathMode, caseInsensitive: true }) // the regex-only path
          for (const v of values) {
            const lower = /^[^A-Z]*$/.test(v) && /^[^A-Z]*$/.test(pattern)
            if (lower) expect(fast.test(v), `${JSON.stringify(pattern)} ~ ${JSON.stringify(v)}`).toBe(plain.test(v))
          }
        },
      ),
      { numRuns: 20000 },
    )
  })
})
