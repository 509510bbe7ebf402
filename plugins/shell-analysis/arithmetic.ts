/**
 * Static evaluation of bash arithmetic (`$((7870 + 8))`, `$((P * 2))`): integers in decimal, hex (`0x`),
 * octal (leading `0`) and `base#digits`, variables known from earlier in the command, `+ - * / % **`,
 * unary `+ -`, parentheses. Anything else (assignments, comparisons, unknown names) is left unknown, so a
 * computed port or count is seen when it can be, and never guessed when it cannot.
 */

const MAX_TEXT = 256

/** The value of the arithmetic expression `text`, or undefined when it cannot be computed statically. */
export function evaluateArithmetic(text: string, lookup: (name: string) => string | undefined): string | undefined {
  if (text.length > MAX_TEXT) return undefined
  const tokens = tokenize(text, lookup, 0)
  if (tokens === undefined) return undefined
  let pos = 0
  const peek = (): string | undefined => tokens[pos]
  const factor = (): bigint | undefined => {
    const t = tokens[pos++]
    if (t === undefined) return undefined
    if (t === '-' || t === '+') {
      const v = factor()
      return v === undefined ? undefined : t === '-' ? -v : v
    }
    if (t === '(') {
      const v = sum()
      return tokens[pos++] === ')' ? v : undefined
    }
    return /^\d+$/.test(t) ? BigInt(t) : undefined
  }
  const power = (): bigint | undefined => {
    const base = factor()
    if (peek() !== '**') return base
    pos++
    const exp = power()
    return base === undefined || exp === undefined || exp < 0n || exp > 64n ? undefined : base ** exp
  }
  const product = (): bigint | undefined => {
    let v = power()
    while (v !== undefined && (peek() === '*' || peek() === '/' || peek() === '%')) {
      const op = tokens[pos++]
      const r = power()
      if (r === undefined || (op !== '*' && r === 0n)) return undefined
      v = op === '*' ? v * r : op === '/' ? v / r : v % r
    }
    return v
  }
  const sum = (): bigint | undefined => {
    let v = product()
    while (v !== undefined && (peek() === '+' || peek() === '-')) {
      const op = tokens[pos++]
      const r = product()
      if (r === undefined) return undefined
      v = op === '+' ? v + r : v - r
    }
    return v
  }
  const value = sum()
  if (value === undefined || pos !== tokens.length) return undefined
  // bash arithmetic is signed 64-bit.
  return BigInt.asIntN(64, value).toString()
}

function tokenize(text: string, lookup: (name: string) => string | undefined, depth: number): string[] | undefined {
  const out: string[] = []
  const re = /\s*(?:(\*\*|[-+*/%()])|(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)|\$?\{?([A-Za-z_]\w*)\}?)/y
  let i = 0
  while (i < text.length) {
    if (/^\s*$/.test(text.slice(i))) break
    re.lastIndex = i
    const m = re.exec(text)
    if (!m) return undefined
    i = re.lastIndex
    if (m[1] !== undefined) out.push(m[1])
    else if (m[2] !== undefined) {
      const n = parseNumber(m[2])
      if (n === undefined) return undefined
      out.push(n)
    } else {
      // A variable holds an expression of its own (bash evaluates it recursively).
      const value = lookup(m[3]!)
      if (value === undefined || depth > 4) return undefined
      const inner = tokenize(value.trim() === '' ? '0' : value, lookup, depth + 1)
      if (inner === undefined) return undefined
      out.push('(', ...inner, ')')
    }
  }
  return out
}

function parseNumber(text: string): string | undefined {
  try {
    if (/^0[xX]/.test(text)) return BigInt(text).toString()
    const based = /^(\d+)#(.+)$/.exec(text)
    if (based) {
      const base = Number(based[1])
      if (base < 2 || base > 36) return undefined
      let v = 0n
      for (const ch of based[2]!.toLowerCase()) {
        const d = Number.parseInt(ch, 36)
        if (Number.isNaN(d) || d >= base) return undefined
        v = v * BigInt(base) + BigInt(d)
      }
      return v.toString()
    }
    if (/^0\d+$/.test(text)) return /^0[0-7]+$/.test(text) ? BigInt(`0o${text.slice(1)}`).toString() : undefined
    return BigInt(text).toString()
  } catch {
    return undefined
  }
}
