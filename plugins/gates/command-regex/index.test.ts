import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileSafeRegex } from '../../../core/index.ts'
import { runGateCases } from '../../../testing/gate-tester.ts'
import commandRegex, { anchoredHead } from './index.ts'

const shell = (raw: string, texts: string[] = [raw]) => ({
  raw,
  commands: texts.map((text) => ({ program: text.split(' ')[0]!, argv: text.split(' '), text, via: [] })),
  signals: [],
})

runGateCases(
  commandRegex,
  {
    pass: [
      { value: '^rm\\s', request: { tool: 'Bash', shell: shell('ls -la') } },
      { value: '^rm\\s', request: { tool: 'Read' } },
      { value: '^git\\s+reset\\s+--hard', request: { tool: 'Bash', shell: shell('git commit -m "x"', ['git commit -m x']) } },
    ],
    flag: [
      { value: '^rm\\s', request: { tool: 'Bash', shell: shell('rm -rf build') } },
      { name: 'matches an analysed command, not just raw text', value: '^rm -rf /$', request: { tool: 'Bash', shell: shell("r''m -rf /", ['rm -rf /']) } },
      { name: 'matches the raw text', value: 'x=1', request: { tool: 'Bash', shell: shell('x=1 ls', ['ls']) } },
    ],
    badConfig: [
      { value: '(unclosed', message: /missing closing \)/ },
      { value: '(?=lookahead)', message: /unsupported Perl syntax/ },
      { value: '(a+)+\\1', message: /invalid escape|backreference|unsupported/ },
    ],
  },
  { describe, it },
)

describe('anchoredHead', () => {
  it('is the literal start of every match (property)', () => {
    const piece = fc.constantFrom('p', 's', 'ps', ' ', '-', 'x', '.', '\\s', '\\.', '[a-z]', '[]p]', '(?:a|b)', '(p)', '|', '?', '*', '+', '{1,2}', 'e')
    const pattern = fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => `^${p.join('')}`)
    const text = fc.array(fc.constantFrom('p', 's', ' ', '-', 'x', '.', 'a', 'b', 'e', ']'), { maxLength: 8 }).map((t) => t.join(''))
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 10 }), (source, texts) => {
        let regex: ReturnType<typeof compileSafeRegex>
        try {
          regex = compileSafeRegex(source)
        } catch {
          return
        }
        const head = anchoredHead(source)
        // Texts that start with the head, so that matches are common.
        for (const t of [...texts, ...texts.map((t) => head + t)]) if (regex.test(t)) expect(t.startsWith(head), `${source} on ${t}`).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it('reads a literal head up to the first metacharacter or quantified character, none under a top-level alternation', () => {
    expect(anchoredHead('^ps(?: (?:-x) \\S+)*? e')).toBe('ps')
    expect(anchoredHead('^git\\s+reset')).toBe('git')
    expect(anchoredHead('^rm -rf /$')).toBe('rm -rf /')
    expect(anchoredHead('^pss?x')).toBe('ps')
    expect(anchoredHead('^ps|^x')).toBe('')
    expect(anchoredHead('^p[|]s')).toBe('p')
    expect(anchoredHead('x=1')).toBe('')
  })
})
