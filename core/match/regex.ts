/**
 * Linear-time regexes for patterns written in policy files (re2js). Registry rules are untrusted input,
 * so a backtracking engine is never used on them.
 */
import { RE2JS } from 're2js'

export interface SafeRegex {
  readonly source: string
  test(value: string): boolean
}

/** Compiles `pattern` with RE2 semantics; throws an Error whose message says why it is invalid. */
export function compileSafeRegex(pattern: string, flags: { caseInsensitive?: boolean } = {}): SafeRegex {
  const regex = RE2JS.compile(pattern, flags.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0)
  // A pattern anchored on literal text (`^ps …`) cannot match a value that does not start with it: RE2 runs on those that do.
  const head = flags.caseInsensitive ? '' : anchoredHead(pattern)
  return { source: pattern, test: (value) => value.startsWith(head) && regex.matcher(value).find() }
}

/**
 * The literal text every match of `pattern` starts with: what follows a leading `^` up to the first metacharacter,
 * less a character a quantifier makes optional; '' when there is none, or an alternation outside any group.
 */
export function anchoredHead(pattern: string): string {
  if (!pattern.startsWith('^')) return ''
  let depth = 0
  // Escapes and classes (a `]` first in a class is literal) are skipped whole; groups are counted.
  for (const [t] of pattern.matchAll(/\\.|\[\^?\]?(?:\\.|[^\]])*\]|[()|]/gs)) {
    depth += t === '(' ? 1 : t === ')' ? -1 : 0
    if (t === '|' && depth === 0) return ''
  }
  const literal = /^[\w ,:=@%/-]*/.exec(pattern.slice(1))![0]
  return /^[*?+{]/.test(pattern.slice(1 + literal.length)) ? literal.slice(0, -1) : literal
}
