import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileGlob } from './glob.ts'
import { globList } from './glob-list.ts'

describe('globList', () => {
  // Segments built from the pieces that decide where a match may end: literals, stars, `**`, classes, braces, escapes.
  const piece = fc.constantFrom('a', 'b', '.env', 'x.json', '*', '**', '?', '[ab]', '{a,b/c}', '{x,.env}', '\\*', '')
  const pattern = fc
    .array(piece, { minLength: 1, maxLength: 5 })
    .chain((pieces) => fc.array(fc.constantFrom('', '/'), { minLength: pieces.length, maxLength: pieces.length }).map((seps) => pieces.map((p, i) => `${seps[i]}${p}`).join('')))
  const value = fc
    .array(fc.constantFrom('a', 'b', '.env', 'x.json', 'c', 'ab', 'a.env', '*', 'x'), { minLength: 1, maxLength: 5 })
    .chain((segs) => fc.constantFrom('', '/').chain((lead) => fc.constantFrom('', '/').map((trail) => `${lead}${segs.join('/')}${trail}`)))

  it('answers as testing every glob in turn (property)', () => {
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 6 }), fc.array(value, { minLength: 1, maxLength: 8 }), (patterns, values) => {
        const globs = patterns.flatMap((p) => {
          try {
            return [compileGlob(p, { pathMode: true })]
          } catch {
            return []
          }
        })
        const list = globList(globs, false)
        for (const v of values) expect(list.test(v), `${JSON.stringify(patterns)} on ${v}`).toBe(globs.some((g) => g.test(v)))
      }),
      { numRuns: 2000 },
    )
  })

  it('keeps the globs that may end elsewhere than their last literal segment out of the by-name lookup', () => {
    // `x**/a` matches `xa` (the `**/` matches nothing); `{a,b/c}` spans a slash.
    for (const [pattern, value] of [
      ['x**/a', 'xa'],
      ['q/{a,b/c}', 'q/b/c'],
      ['**/a', 'a'],
    ] as const) {
      expect(globList([compileGlob(pattern, { pathMode: true })], false).test(value), pattern).toBe(true)
    }
  })
})
