import { describe, it } from 'vitest'
import { runGateCases } from '../../../testing/gate-tester.ts'
import commandRegex from './index.ts'

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
