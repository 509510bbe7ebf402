/**
 * Backslash-escape decoding used by bash: ANSI-C quoting (`$'\x72\x6d'`), `echo -e` and `printf` formats.
 * These let an agent spell `rm` without the letters appearing in the raw text, so they are decoded
 * before any gate sees the command.
 */

const SIMPLE: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
}

/**
 * Decodes backslash escapes. `mode` selects the dialect: `ansi-c` for `$'...'`, `echo` for `echo -e`
 * (octal is `\0nnn`), `printf` for printf formats (octal is `\nnn`), `printf-b` for printf's `%b` arguments
 * (bash takes both `\0nnn` and `\nnn` there).
 */
export function decodeEscapes(text: string, mode: 'ansi-c' | 'echo' | 'printf' | 'printf-b'): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch !== '\\' || i === text.length - 1) {
      out += ch
      continue
    }
    const next = text[i + 1]!
    const simple = SIMPLE[next]
    if (simple !== undefined && !(mode !== 'ansi-c' && (next === "'" || next === '?'))) {
      out += simple
      i++
      continue
    }
    if (next === 'x') {
      const hex = /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 2))
      if (hex) {
        out += String.fromCharCode(parseInt(hex[0], 16))
        i += 1 + hex[0].length
        continue
      }
    }
    if (next === 'u' || next === 'U') {
      const hex = new RegExp(`^[0-9a-fA-F]{1,${next === 'u' ? 4 : 8}}`).exec(text.slice(i + 2))
      if (hex) {
        const code = parseInt(hex[0], 16)
        out += code <= 0x10ffff ? String.fromCodePoint(code) : ''
        i += 1 + hex[0].length
        continue
      }
    }
    if (mode === 'ansi-c' && next === 'c' && i + 2 < text.length) {
      out += String.fromCharCode(text.charCodeAt(i + 2) & 0x1f)
      i += 2
      continue
    }
    const zeroLed = mode === 'echo' || (mode === 'printf-b' && next === '0')
    const octal = zeroLed ? /^0[0-7]{0,3}/.exec(text.slice(i + 1)) : /^[0-7]{1,3}/.exec(text.slice(i + 1))
    if (octal) {
      const digits = zeroLed ? octal[0].slice(1) : octal[0]
      out += String.fromCharCode(digits === '' ? 0 : parseInt(digits, 8) & 0xff)
      i += octal[0].length
      continue
    }
    if ((mode === 'echo' || mode === 'printf-b') && next === 'c') return out
    out += ch + next
    i++
  }
  return out
}

/**
 * Renders a printf invocation when the format only uses `%s`, `%b`, `%c`, `%d` and `%%` (enough for the
 * obfuscation tricks seen in the wild). Returns undefined for formats it cannot render faithfully.
 */
export function renderPrintf(format: string, args: readonly string[]): string | undefined {
  const decoded = decodeEscapes(format, 'printf')
  let out = ''
  let argIndex = 0
  let consumed = false
  // printf reuses the format while arguments remain.
  for (let round = 0; round < 64; round++) {
    for (let i = 0; i < decoded.length; i++) {
      const ch = decoded[i]
      if (ch !== '%') {
        out += ch
        continue
      }
      const spec = /^%(-?\d*)([sbcdi%])/.exec(decoded.slice(i))
      if (!spec) return undefined
      i += spec[0].length - 1
      if (spec[2] === '%') {
        out += '%'
        continue
      }
      const arg = args[argIndex++] ?? ''
      consumed = true
      if (spec[2] === 's') out += arg
      else if (spec[2] === 'b') out += decodeEscapes(arg, 'printf-b')
      else if (spec[2] === 'c') out += arg.slice(0, 1)
      else out += String(Number.parseInt(arg, 10) || 0)
    }
    if (!consumed || argIndex >= args.length) return out
  }
  return undefined
}
