/** `svc scan`'s report as text: where it looked, the tally per gate and pack, the denied calls, what it could not read. */
import { inert } from '../terminal-text.ts'
import type { ScanReport } from './replay.ts'

const when = (at: string | undefined) => (at ? at.replace('T', ' ').slice(0, 16) : '????-??-?? ??:??')

export function renderScan(r: ScanReport, opts: { all: boolean; limit: number }): string {
  const out: string[] = []
  out.push('searched:')
  for (const s of r.searched) {
    const found = s.found ? `${s.transcripts} transcript${s.transcripts === 1 ? '' : 's'}, ${s.calls} call${s.calls === 1 ? '' : 's'}` : 'not there (no history)'
    out.push(`  ${s.harness.padEnd(12)} ${inert(s.dir)}  ${found}`)
  }
  out.push(
    `read ${r.transcripts} transcript${r.transcripts === 1 ? '' : 's'}, ${r.calls} tool call${r.calls === 1 ? '' : 's'}; replayed through the current policy (firewall mode, nothing recorded)`,
  )
  if (r.denied.length === 0) out.push('no call would have been denied.')
  else {
    out.push('', `${r.denied.length} of ${r.calls} calls would have been denied:`)
    const gates = Object.entries(r.per_gate).sort((a, b) => b[1] - a[1])
    const width = Math.max(4, ...gates.map(([g]) => g.length))
    out.push(`  ${'gate'.padEnd(width)}  ${'pack'.padEnd(16)} calls`)
    for (const [gate, n] of gates) {
      const pack = r.denied.find((d) => d.rule_id === gate)?.pack ?? ''
      out.push(`  ${inert(gate).padEnd(width)}  ${inert(pack).padEnd(16)} ${n}`)
    }
    out.push(
      `  per pack: ${Object.entries(r.per_pack)
        .sort((a, b) => b[1] - a[1])
        .map(([p, n]) => `${inert(p)} ${n}`)
        .join(', ')}`,
    )
    const newest = [...r.denied].sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''))
    const shown = opts.all ? newest : newest.slice(0, opts.limit)
    out.push('', `denied calls, newest first${shown.length < newest.length ? ` (${shown.length} of ${newest.length}; --all lists every one)` : ''}:`)
    for (const d of shown) {
      out.push(`  ${when(d.at)}  ${d.harness.padEnd(11)} ${inert(d.tool).padEnd(10)} ${inert(d.subject)}`)
      out.push(`      ${inert(d.reason)}`)
      if (d.nudge) out.push(`      nudge: ${inert(d.nudge)}`)
      out.push(`      ${inert(d.file)}:${d.line}${d.cwd ? `  (cwd ${inert(d.cwd)})` : ''}`)
    }
    out.push(
      '',
      `If ${r.denied.length === 1 ? 'this call' : `any of these ${r.denied.length} calls`} was ordinary work, svc would have stopped it: that is a false positive, and the list above is its report.`,
      'See why one was denied with `svc explain --harness <harness> "<command>"`; once svc runs, `svc false-positive <seq>` drafts the fix for a denied call.',
    )
  }
  if (r.alerts > 0) out.push(`${r.alerts} call${r.alerts === 1 ? '' : 's'} would have raised a monitor alert (allowed, recorded).`)
  if (r.unreadable.length > 0) {
    out.push('', `could not read ${r.unreadable.length} entr${r.unreadable.length === 1 ? 'y' : 'ies'} (not replayed, not counted):`)
    for (const u of r.unreadable.slice(0, opts.all ? undefined : opts.limit)) out.push(`  ${u.harness.padEnd(12)} ${inert(u.file)}${u.line ? `:${u.line}` : ''}  ${inert(u.why)}`)
    if (!opts.all && r.unreadable.length > opts.limit) out.push(`  … ${r.unreadable.length - opts.limit} more (--all)`)
  }
  return out.join('\n')
}
