/**
 * `command_regex`: a linear-time (RE2) regex over each analysed simple command of a shell call, so
 * quoting, wrappers and `bash -c` nesting cannot hide the command, and over the raw text.
 */
import { compileSafeRegex, defineGateKind, type EvalRequest } from '../../../core/index.ts'

export default defineGateKind<string>({
  kind: 'command_regex',
  description: 'RE2 regex matched against every analysed simple command (effective argv joined by spaces) and the raw command text.',
  schema: { type: 'string', minLength: 1, maxLength: 4096 },
  compile(value) {
    const regex = compileSafeRegex(value)
    // A pattern anchored on literal text (`^ps …`) cannot match a text that does not start with it: RE2 runs on those that do.
    const head = anchoredHead(value)
    const test = (text: string) => text.startsWith(head) && regex.test(text)
    return function commandMatches(request: EvalRequest) {
      const shell = request.shell
      if (!shell) return undefined
      for (const command of shell.commands) if (test(command.text)) return `command \`${command.text}\``
      return test(shell.raw) ? `command text \`${shell.raw}\`` : undefined
    }
  },
  index: () => ({ facets: ['shell'] }),
})

/**
 * The literal text every match of `pattern` starts with: what follows a leading `^` up to the first
 * metacharacter (less a character a quantifier makes optional), or '' when an alternation outside any group
 * could match without it.
 */
export function anchoredHead(pattern: string): string {
  if (!pattern.startsWith('^')) return ''
  let depth = 0
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') i++
    else if (c === '[') i = classEnd(pattern, i)
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '|' && depth === 0) return ''
  }
  const literal = /^[\w ,:=@%/-]*/.exec(pattern.slice(1))![0]
  return /^[*?+{]/.test(pattern.slice(1 + literal.length)) ? literal.slice(0, -1) : literal
}

/** The index of the `]` closing the class opened at `start` (a `]` first in the class is literal). */
function classEnd(pattern: string, start: number): number {
  let i = start + 1
  if (pattern[i] === '^') i++
  if (pattern[i] === ']') i++
  for (; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++
  return i
}
