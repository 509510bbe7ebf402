/**
 * Here-documents, read the way bash reads them: every `<<WORD` on a line takes the following lines up to
 * WORD as its body, whatever else the line holds (`cat > x.sh <<'EOF' && chmod +x x.sh && ./x.sh`, `; bash
 * x.sh`, two here-docs on one line). tree-sitter-bash loses bodies in those shapes or reports a parse error,
 * so before parsing each here-doc becomes a here-string with the same content (`<<< 'body'`), which it
 * parses in any list. Expansion stays as bash does it: a quoted delimiter keeps the body literal (single
 * quotes), an unquoted one expands `$x` and `$(...)` in it (double quotes, with `"` escaped).
 */
import { closeBracket, pastQuoting } from './shell-text.ts'

const MAX_HEREDOCS = 256

interface Pending {
  /** Where the `<<` operator starts and where its delimiter word ends, in the source. */
  readonly start: number
  readonly end: number
  readonly delimiter: string
  readonly quoted: boolean
  readonly stripTabs: boolean
}

/**
 * `text` with every here-document and here-string turned into an input redirection from a process
 * substitution printing the same content (`< <(printf '%s\n' 'body')`): tree-sitter-bash parses a file
 * redirection anywhere, where it refuses a here-string after another redirection (`cat > f <<< x`).
 */
export function inlineHeredocs(text: string): string {
  if (!text.includes('<<') && !text.includes('<>')) return text
  return hereStringsAsRedirects(text.includes('<<') ? heredocsAsHereStrings(text) : text)
}

/** Every here-document as a here-string with the same content. */
function heredocsAsHereStrings(text: string): string {
  let out = ''
  let copied = 0
  let pending: Pending[] = []
  let count = 0
  let arithmetic = 0
  let i = 0
  const flushLine = (newline: number): number => {
    // The line ends at `newline`: the bodies follow it, in order. Rewrite the operators, then skip the bodies.
    let pos = newline + 1
    let rebuilt = ''
    let from = copied
    for (const doc of pending) {
      const { body, next } = readBody(text, pos, doc)
      pos = next
      rebuilt += `${text.slice(from, doc.start)}<<< ${quoteBody(body, doc.quoted)}`
      from = doc.end
    }
    out += `${rebuilt}${text.slice(from, newline)}\n`
    pending = []
    copied = pos
    return pos
  }
  while (i < text.length) {
    const ch = text[i]!
    const quoted = pastQuoting(text, i)
    if (quoted !== undefined) {
      i = quoted
      continue
    }
    if (ch === '#' && (i === 0 || /[\s;&|(]/.test(text[i - 1]!))) {
      while (i < text.length && text[i] !== '\n') i++
      continue
    }
    if (ch === '(' && text[i + 1] === '(') {
      arithmetic++
      i += 2
      continue
    }
    if (ch === ')' && text[i + 1] === ')' && arithmetic > 0) {
      arithmetic--
      i += 2
      continue
    }
    if (text.startsWith('<<<', i)) {
      i += 3
      continue
    }
    if (ch === '<' && text[i + 1] === '<' && arithmetic === 0 && count < MAX_HEREDOCS) {
      const doc = readOperator(text, i)
      if (doc) {
        pending.push(doc)
        count++
        i = doc.end
        continue
      }
    }
    if (ch === '\n' && pending.length > 0) {
      i = flushLine(i)
      continue
    }
    i++
  }
  if (pending.length > 0) flushLine(text.length)
  out += text.slice(copied)
  return out
}

/**
 * Every `<<< WORD` as a redirection from `printf '%s\n' WORD` (the same bytes on stdin, WORD expanded the
 * same way), and every read-write `N<>FILE` (which tree-sitter-bash cannot parse) as `N<FILE N>>FILE`.
 */
function hereStringsAsRedirects(text: string): string {
  let out = ''
  let copied = 0
  let i = 0
  let count = 0
  while (i < text.length) {
    const ch = text[i]!
    const quoted = pastQuoting(text, i)
    if (quoted !== undefined) {
      i = quoted
      continue
    }
    if (ch === '<' && text[i + 1] === '>' && count < MAX_HEREDOCS) {
      let fd = i
      while (fd > 0 && /\d/.test(text[fd - 1]!)) fd--
      let start = i + 2
      while (text[start] === ' ' || text[start] === '\t') start++
      const end = wordEnd(text, start)
      if (end > start) {
        const n = text.slice(fd, i)
        const word = text.slice(start, end)
        out += `${text.slice(copied, fd)}${n}<${word} ${n}>>${word}`
        copied = end
        count++
      }
      i = Math.max(end, i + 2)
      continue
    }
    if (ch === '<' && text.startsWith('<<<', i) && count < MAX_HEREDOCS) {
      let start = i + 3
      while (text[start] === ' ' || text[start] === '\t') start++
      const end = wordEnd(text, start)
      if (end > start) {
        out += `${text.slice(copied, i)}< <(printf '%s\\n' ${text.slice(start, end)})`
        copied = end
        count++
      }
      i = Math.max(end, i + 3)
      continue
    }
    i++
  }
  return out + text.slice(copied)
}

/** End of the shell word starting at `start`: quotes, `$(...)`, `${...}` and backslashes kept whole. */
function wordEnd(text: string, start: number): number {
  let i = start
  while (i < text.length && !/[\s;&|<>)]/.test(text[i]!)) {
    const ch = text[i]!
    if (ch === '$' && (text[i + 1] === '(' || text[i + 1] === '{')) i = closeBracket(text, i + 1)
    else i = pastQuoting(text, i) ?? i + 1
  }
  return Math.min(i, text.length)
}

/** `<<WORD`, `<<-WORD`, `<< 'WORD'`, `<<"WORD"`, `<<\WORD`, `<<E"O"F` starting at `start`. */
function readOperator(text: string, start: number): Pending | undefined {
  let i = start + 2
  const stripTabs = text[i] === '-'
  if (stripTabs) i++
  while (text[i] === ' ' || text[i] === '\t') i++
  let delimiter = ''
  let quoted = false
  while (i < text.length && !/[\s;&|<>()]/.test(text[i]!)) {
    const ch = text[i]!
    if (ch === "'" || ch === '"') {
      quoted = true
      const close = text.indexOf(ch, i + 1)
      if (close === -1) return undefined
      delimiter += text.slice(i + 1, close)
      i = close + 1
    } else if (ch === '\\') {
      quoted = true
      delimiter += text[i + 1] ?? ''
      i += 2
    } else {
      delimiter += ch
      i++
    }
  }
  if (delimiter === '' || delimiter.includes('$(')) return undefined
  return { start, end: i, delimiter, quoted, stripTabs }
}

/** The body of one here-doc starting at `pos` (without the delimiter line), and where the next one starts. */
function readBody(text: string, pos: number, doc: Pending): { body: string; next: number } {
  const lines: string[] = []
  let p = pos
  while (p < text.length) {
    const nl = text.indexOf('\n', p)
    const raw = text.slice(p, nl === -1 ? text.length : nl)
    const line = doc.stripTabs ? raw.replace(/^\t+/, '') : raw
    p = nl === -1 ? text.length : nl + 1
    if (line === doc.delimiter) return { body: lines.map((l) => `${l}\n`).join(''), next: p }
    lines.push(line)
  }
  // No delimiter line: bash warns and takes the rest of the input as the body.
  return { body: lines.map((l) => `${l}\n`).join(''), next: text.length }
}

/** A here-string word holding `body` (the here-string adds the final newline back). */
function quoteBody(body: string, literal: boolean): string {
  const text = body.endsWith('\n') ? body.slice(0, -1) : body
  if (literal) return `'${text.replace(/'/g, `'\\''`)}'`
  // Inside double quotes `"` needs escaping, and a here-doc's `\"` is a literal backslash before it. A
  // `$(…)` or `${…}` is parsed afresh inside double quotes, so its own quotes are copied as they are
  // (`$(rm -rf "$HOME")` escaped would read `"/home/me"` with its quotes and hide the home).
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === '$' && (text[i + 1] === '(' || text[i + 1] === '{')) {
      const end = closeBracket(text, i + 1)
      out += text.slice(i, end)
      i = end - 1
    } else if (ch === '\\' && text[i + 1] === '"') {
      out += '\\\\\\"'
      i++
    } else if (ch === '\\' && i + 1 < text.length) {
      out += ch + text[i + 1]
      i++
    } else out += ch === '"' ? '\\"' : ch
  }
  return `"${out}"`
}
