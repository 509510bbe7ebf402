/**
 * Reading bash text without parsing it, where a whole parse is not the tool: the end of a quoted span, the
 * bracket that closes `$(` or `${`, and the command substitutions in a value bash will expand again.
 */

/** Index just past the closing quote of a `"..."` or `` `...` `` span starting at `start`. */
export function skipQuoted(text: string, start: number, quote: string): number {
  let i = start + 1
  while (i < text.length && text[i] !== quote) i += text[i] === '\\' ? 2 : 1
  return i + 1
}

/** Index just past the bracket matching the one at `open` (quotes inside skipped). */
export function closeBracket(text: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '{': '}' }
  const stack = [pairs[text[open]!]!]
  let i = open + 1
  while (i < text.length && stack.length > 0) {
    const past = pastQuoting(text, i)
    if (past !== undefined) {
      i = past
      continue
    }
    const ch = text[i]!
    if (ch === '(' || ch === '{') stack.push(pairs[ch]!)
    else if (ch === stack[stack.length - 1]) stack.pop()
    i++
  }
  return i
}

/** When a backslash escape or a quoted span starts at `i`: the index just past it. */
export function pastQuoting(text: string, i: number): number | undefined {
  const ch = text[i]
  if (ch === '\\') return i + 2
  if (ch === '"' || ch === '`') return skipQuoted(text, i, ch)
  if (ch !== "'") return undefined
  // `$'...'` honours backslash escapes; plain single quotes do not.
  const ansi = text[i - 1] === '$'
  let j = i + 1
  while (j < text.length && text[j] !== "'") j += ansi && text[j] === '\\' ? 2 : 1
  return j + 1
}

/**
 * The commands of the `$(…)` and `` `…` `` substitutions in `text`, as bash finds them when it expands the text
 * again (arithmetic, `${x@P}`, a prompt): quotes and nesting inside a substitution respected, `$((` is arithmetic.
 */
export function substitutionsIn(text: string): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length && out.length < 16; ) {
    if (text[i] === '\\') i += 2
    else if (text[i] === '`') {
      const end = skipQuoted(text, i, '`')
      out.push(text.slice(i + 1, Math.min(end - 1, text.length)))
      i = end
    } else if (text.startsWith('$(', i) && text[i + 2] !== '(') {
      const end = closeBracket(text, i + 1)
      out.push(text.slice(i + 2, end <= text.length && text[end - 1] === ')' ? end - 1 : text.length))
      i = end
    } else i++
  }
  return out
}
