/**
 * Text typed into a running terminal (Codex `write_stdin {session_id, chars}`) is keystrokes, not a script:
 * CR or LF is Enter, Ctrl-U/Ctrl-W/Ctrl-K/DEL/Backspace edit the line, Ctrl-A/E/B/F and arrow keys move the
 * cursor, Ctrl-Y yanks what was killed, Ctrl-C drops the line, and a command may be split across calls. Each
 * terminal keeps its own line buffer between calls; what reaches the shell is the lines completed by Enter.
 * Keys whose effect cannot be known (Tab completion, history recall, reverse search) are reported.
 */

/** The lines a chunk of keystrokes completes, and whether it held keys svc cannot model. */
export interface Keystrokes {
  readonly lines: readonly string[]
  readonly unknownKeys: boolean
}

interface LineState {
  text: string
  cursor: number
  killed: string
}

const MAX_TERMINALS = 4096
const MAX_LINE = 64 * 1024

/** Line buffers of the terminals seen so far, keyed by harness session and terminal id. */
export class TerminalLines {
  private readonly terminals = new Map<string, LineState>()

  /** Applies `chars` to terminal `key`'s line; returns the lines completed by Enter. */
  type(key: string, chars: string): Keystrokes {
    const state = this.terminals.get(key) ?? { text: '', cursor: 0, killed: '' }
    this.terminals.delete(key)
    const result = applyKeys(state, chars)
    if (state.text !== '' || state.killed !== '') this.terminals.set(key, state)
    if (this.terminals.size > MAX_TERMINALS) this.terminals.delete(this.terminals.keys().next().value as string)
    return result
  }
}

function applyKeys(s: LineState, chars: string): Keystrokes {
  const lines: string[] = []
  let unknownKeys = false
  const insert = (t: string): void => {
    s.text = s.text.slice(0, s.cursor) + t + s.text.slice(s.cursor)
    s.cursor += t.length
    if (s.text.length > MAX_LINE) unknownKeys = true
  }
  const kill = (from: number, to: number): void => {
    s.killed = s.text.slice(from, to)
    s.text = s.text.slice(0, from) + s.text.slice(to)
    s.cursor = from
  }
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!
    const code = ch.charCodeAt(0)
    if (ch === '\r' || ch === '\n') {
      lines.push(s.text)
      s.text = ''
      s.cursor = 0
    } else if (ch === '\x15') kill(0, s.cursor)
    else if (ch === '\x0b') kill(s.cursor, s.text.length)
    else if (ch === '\x17') kill(wordStart(s.text, s.cursor), s.cursor)
    else if (ch === '\x7f' || ch === '\x08') {
      if (s.cursor > 0) kill(s.cursor - 1, s.cursor)
    } else if (ch === '\x04') {
      if (s.cursor < s.text.length) s.text = s.text.slice(0, s.cursor) + s.text.slice(s.cursor + 1)
    } else if (ch === '\x03') {
      s.text = ''
      s.cursor = 0
    } else if (ch === '\x01') s.cursor = 0
    else if (ch === '\x05') s.cursor = s.text.length
    else if (ch === '\x02') s.cursor = Math.max(0, s.cursor - 1)
    else if (ch === '\x06') s.cursor = Math.min(s.text.length, s.cursor + 1)
    else if (ch === '\x19') insert(s.killed)
    else if (ch === '\x0c' || ch === '\x00') continue
    else if (ch === '\x16') insert(chars[++i] ?? '')
    else if (ch === '\x1b') {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences a terminal sends for cursor keys
      const m = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z]|[bfd])/.exec(chars.slice(i))
      const seq = m?.[1]
      if (seq === '[D' || seq === 'OD') s.cursor = Math.max(0, s.cursor - 1)
      else if (seq === '[C' || seq === 'OC') s.cursor = Math.min(s.text.length, s.cursor + 1)
      else if (seq === '[H' || seq === 'OH' || seq === '[1~') s.cursor = 0
      else if (seq === '[F' || seq === 'OF' || seq === '[4~') s.cursor = s.text.length
      else if (seq === '[3~') s.text = s.text.slice(0, s.cursor) + s.text.slice(s.cursor + 1)
      else if (seq === 'b') s.cursor = wordStart(s.text, s.cursor)
      else if (seq === 'f') s.cursor = wordEnd(s.text, s.cursor)
      else if (seq === 'd') kill(s.cursor, wordEnd(s.text, s.cursor))
      else unknownKeys = true
      i += m ? m[0].length - 1 : 0
    } else if (code < 0x20)
      unknownKeys = true // Tab completion, history (C-p/C-n/C-r), transpose: effect unknown
    else insert(ch)
  }
  return { lines, unknownKeys }
}

/** readline's unix-word-rubout: back over spaces, then over non-spaces. */
function wordStart(text: string, cursor: number): number {
  let i = cursor
  while (i > 0 && /\s/.test(text[i - 1]!)) i--
  while (i > 0 && !/\s/.test(text[i - 1]!)) i--
  return i
}

function wordEnd(text: string, cursor: number): number {
  let i = cursor
  while (i < text.length && /\s/.test(text[i]!)) i++
  while (i < text.length && !/\s/.test(text[i]!)) i++
  return i
}
