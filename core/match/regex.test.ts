import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RE2JS } from 're2js'
import { anchoredHead, compileSafeRegex } from './regex.ts'

describe('compileSafeRegex', () => {
  it('answers as RE2 alone: no text a pattern matches lacks its anchored head (property)', () => {
    const piece = fc.constantFrom('p', 's', 'ps', ' ', '-', 'x', '.', '\\s', '\\.', '[a-z]', '[]p]', '(?:a|b)', '(p)', '|', '?', '*', '+', '{1,2}', 'e')
    const pattern = fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => `^${p.join('')}`)
    const text = fc.array(fc.constantFrom('p', 's', ' ', '-', 'x', '.', 'a', 'b', 'e', ']'), { maxLength: 8 }).map((t) => t.join(''))
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 10 }), (source, texts) => {
        let re2: RE2JS
        try {
          re2 = RE2JS.compile(source)
        } catch {
          return
        }
        const safe = compileSafeRegex(source)
        // Texts that start with the head too, so that matches are common.
        for (const t of [...texts, ...texts.map((t) => anchoredHead(source) + t)]) expect(safe.test(t), `${source} on ${t}`).toBe(re2.matcher(t).find())
      }),
      { numRuns: 3000 },
    )
  })

  it('anchoredHead reads a literal head up to the first metacharacter or quantified character, none under a top-level alternation', () => {
    expect(anchoredHead('^ps(?: (?:-x) \\S+)*? e')).toBe('ps')
    expect(anchoredHead('^git\\s+reset')).toBe('git')
    expect(anchoredHead('^rm -rf /$')).toBe('rm -rf /')
    expect(anchoredHead('^pss?x')).toBe('ps')
    expect(anchoredHead('^ps|^x')).toBe('')
    expect(anchoredHead('^p[|]s')).toBe('p')
    expect(anchoredHead('x=1')).toBe('')
  })
})
