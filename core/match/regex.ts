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
  return { source: pattern, test: (value) => regex.matcher(value).find() }
}
