/**
 * How a ledger record is shown by the line-oriented commands (`svc log`, `svc tail`): one fixed-column line,
 * or one JSON object. Everything agent-supplied goes through the one redaction (plugins/rule-lifecycle: the
 * daemon already redacted the call; leaf text is redacted here with the same function) and, on the line
 * form, through `inert` so that no byte of it can drive the terminal.
 */
import { redactText } from '../redaction/index.ts'
import type { LedgerRecord } from './ledger-stream.ts'
import { inert } from './terminal-text.ts'

const COLOUR: Record<string, string> = { deny: '\x1b[31m', monitor_alert: '\x1b[33m', allow: '\x1b[32m' }
const RESET = '\x1b[0m'

/** What the call was about: its redacted command, path or URL, else the leaf's reason. */
export function recordSubject(r: LedgerRecord, home: string): string {
  const input = r.call?.input
  const what = input ? (input.command ?? input.path ?? input.url ?? '') : redactText(r.entry.leaf.reason ?? '', home).text
  return inert(what)
}

export function recordTime(tsMs: number): string {
  return new Date(tsMs)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z')
}

/** One line; the verdict in colour only when `colour` (a terminal that asked for it). */
export function recordLine(r: LedgerRecord, home: string, colour = false): string {
  const { seq, leaf } = r.entry
  const verdict = inert(leaf.verdict).padEnd(13)
  const shown = colour && COLOUR[leaf.verdict] ? `${COLOUR[leaf.verdict]}${verdict}${RESET}` : verdict
  // A deny no gate made (no live session, an unreadable call) is a refusal: its reason is the only why there is.
  const refused = leaf.verdict === 'deny' && !leaf.rule_id
  const rule = refused ? '(refused)' : leaf.rule_id || '-'
  const why = refused ? `  [${inert(redactText(leaf.reason ?? '', home).text)}]` : ''
  return `${String(seq).padStart(6)}  ${recordTime(leaf.ts_ms)}  ${shown} ${inert(leaf.source).padEnd(11)} ${inert(leaf.tool || '-').padEnd(10)} ${inert(rule).padEnd(24)} ${recordSubject(r, home)}${why}`
}

// JSON.stringify escapes C0 controls but not these; \u escapes keep the value and make the line inert.
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/** One JSON object (one line): the fields `svc log --json` has always printed. */
export function recordJson(r: LedgerRecord, home: string): string {
  const { seq, leaf } = r.entry
  const object = {
    seq,
    at: new Date(leaf.ts_ms).toISOString(),
    verdict: leaf.verdict,
    harness: leaf.source,
    tool: leaf.tool,
    rule_id: leaf.rule_id,
    session_id: leaf.session_id,
    reason: redactText(leaf.reason ?? '', home).text,
    ...(r.call ? { input: r.call.input } : {}),
  }
  return JSON.stringify(object).replace(JSON_UNSAFE, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`)
}
