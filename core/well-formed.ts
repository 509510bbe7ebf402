/**
 * Text a client sends must be Unicode: a lone UTF-16 surrogate (`\ud800`) is valid JSON but no valid
 * string (it cannot be written as UTF-8, RFC 8785 refuses it, a harness would turn it into U+FFFD before a
 * shell sees it). svc cannot tell what such a call does, so it is refused with the field named.
 */

/** The first field path in `value` whose key or text is not well-formed, e.g. `input.cmd[2]`; iterative (any depth). */
export function illFormedAt(value: unknown, root: string): string | undefined {
  const stack: [unknown, string][] = [[value, root]]
  while (stack.length > 0) {
    const [v, at] = stack.pop()!
    if (typeof v === 'string') {
      if (!v.isWellFormed()) return at
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`])
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        const path = `${at}.${key.toWellFormed()}`
        if (!key.isWellFormed()) return path
        stack.push([item, path])
      }
    }
  }
  return undefined
}

/** `text` with every lone surrogate replaced by U+FFFD: what a ledger leaf may record of it. */
export function wellFormed(text: string): string {
  return text.toWellFormed()
}
