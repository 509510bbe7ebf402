/**
 * Agent-supplied text (commands, paths, URLs, MCP descriptions, reasons) made inert for a terminal: every
 * control character that could move the cursor, rewrite a line, ring the bell, set the title, start an escape
 * sequence or reorder what is shown is written out as a visible escape (`\x1b`, `\r`, `\u202e`). What an agent
 * sent must never repaint the operator's screen, whether in `svc top`, `svc tail`, `svc log` or `svc hud`.
 */

// C0 controls (tab and newline included: output is one line per record), DEL, C1 controls (0x9b is a CSI on
// some terminals), bidirectional embeddings, overrides and isolates, line and paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the control characters it removes
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\x1b' }

/** `text` with every unsafe character replaced by its visible escape; safe text comes back unchanged. */
export function inert(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch]
    if (named) return named
    const code = ch.codePointAt(0)!
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
