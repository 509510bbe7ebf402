/**
 * One decision opened in `svc top`: the leaf (verdict, harness, tool, rule, session, mode, reason), the call
 * as the daemon redacted it, the policy trace (each layer's opinion, the deciding one marked) and the guardrail
 * stage. Leaf text and the trace go through the one redaction here; every string through `inert`.
 */
import { redactText, redactValue } from '../../redaction/index.ts'
import { recordTime } from '../ledger-record-view.ts'
import type { LedgerRecord } from '../ledger-stream.ts'
import { inert } from '../terminal-text.ts'
import type { Row } from './rows.ts'

export interface GuardrailTrace {
  readonly guardrail?: { verdict: string; why?: string; evaluators?: readonly Record<string, unknown>[] }
  readonly final?: { decided_by?: string }
}

/** The detail lines of `r` (and its guardrail trace when read). */
export function decisionDetailRows(r: LedgerRecord, home: string, guardrail?: GuardrailTrace): Row[] {
  const { seq, leaf } = r.entry
  const rows: Row[] = []
  const add = (text: string, colour?: Row['colour']) => rows.push({ key: String(rows.length), text, colour })
  const colour = leaf.verdict === 'deny' ? 'red' : leaf.verdict === 'monitor_alert' ? 'yellow' : 'green'
  add(`decision ${seq}  ${recordTime(leaf.ts_ms)}  ${inert(leaf.verdict).toUpperCase()}`, colour)
  add(`harness ${inert(leaf.source)}   tool ${inert(leaf.tool)}   rule ${inert(leaf.rule_id || '-')}   mode ${inert(String(leaf.mode ?? '?'))}   session ${inert(leaf.session_id)}`)
  add(`reason  ${inert(redactText(leaf.reason ?? '', home).text)}`)
  if (r.entry.leaf_hash) add(`leaf    ${inert(r.entry.leaf_hash)}`)
  add('')
  const input = r.call?.input
  if (!input) add('call    (not kept: payload retention has dropped it, or this entry has no call)', 'gray')
  else {
    add(`call${r.call?.redacted ? ' (redacted)' : ''}`)
    if (input.command !== undefined) add(`  command  ${inert(input.command)}`)
    if (input.path !== undefined) add(`  path     ${inert(input.path)}`)
    if (input.url !== undefined) add(`  url      ${inert(input.url)}`)
    if (input.cwd !== undefined) add(`  cwd      ${inert(input.cwd)}`)
    if (input.tool_input !== undefined) add(`  input    ${inert(JSON.stringify(input.tool_input))}`)
  }
  add('')
  const trace = redactValue(leaf.policy_trace ?? [], 'policy_trace', home).value
  add(`policy trace (${trace.length} layer${trace.length === 1 ? '' : 's'} with an opinion)`)
  if (trace.length === 0) add('  no gate matched in any layer', 'gray')
  for (const t of trace) {
    const decided = t.rule_id !== undefined && t.rule_id === leaf.rule_id && t.verdict === leaf.verdict
    add(
      `  ${decided ? '>' : ' '} ${inert(t.layer).padEnd(8)} ${inert(t.verdict).padEnd(13)} ${inert(t.rule_id ?? '-').padEnd(30)} ${inert(t.source)}${decided ? '   (decided)' : ''}`,
      decided ? colour : undefined,
    )
  }
  if (guardrail?.guardrail) {
    const g = guardrail.guardrail
    add('')
    add(`guardrail stage: ${inert(g.verdict)}${g.why ? ` (${inert(g.why)})` : ''}${guardrail.final?.decided_by ? `; decided by ${inert(guardrail.final.decided_by)}` : ''}`)
    for (const e of g.evaluators ?? []) add(`  ${inert(JSON.stringify(redactValue(e, 'evaluator', home).value))}`)
  }
  return rows
}
