/**
 * The narrow replacement draft for a false positive: the matched gate's own `when`, minus exactly the call that
 * was wrongly blocked. `svc false-positive <seq>` writes it into the case directory; the dashboard shows it
 * through GET /v1/false-positives/cases/{seq}/draft. Untrusted until validated.
 */
import { stringify } from 'yaml'

/** What a bundle carries that the CLI and the draft read (the rest is written through untouched). */
export interface BundleView {
  readonly event: { seq: number; source: string; tool: string; rule_id: string; verdict: string }
  readonly input: { command?: string; path?: string; url?: string; cwd?: string; tool_input: Record<string, unknown> }
  readonly matched_gate: {
    id: string
    source: string
    on_hit: string
    when: Record<string, unknown>
    require_strong?: boolean
    file: string
    description?: string
    nudge?: string
  }
  readonly redaction: { changed: readonly { field: string; kinds: readonly string[] }[] }
  readonly policy_hash: string
  readonly raw?: { tool: string; input: Record<string, unknown>; cwd: string | null }
}

/** Escapes text for an RE2 pattern. */
function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The draft replacement: the matched gate's own `when`, minus exactly this call. */
export function draftReplacement(bundle: BundleView): { yaml: string; exact: boolean } {
  const call = bundle.raw ?? { tool: bundle.event.tool, input: bundle.input.tool_input, cwd: bundle.input.cwd ?? null }
  const command = typeof call.input.command === 'string' ? call.input.command : undefined
  const path = ['file_path', 'path', 'notebook_path', 'absolute_path'].map((k) => call.input[k]).find((v): v is string => typeof v === 'string')
  const exclusion = command !== undefined ? { command_regex: `^${escapeRegex(command)}$` } : path !== undefined ? { path } : undefined
  const redacted = bundle.raw === undefined && bundle.redaction.changed.some((c) => c.field.startsWith('input.tool_input'))
  const gate = {
    id: `${bundle.matched_gate.id}.fp-${bundle.event.seq}`,
    // The reason an agent reads on a deny is the description: keep what the gate protects, say what was narrowed.
    description: `${bundle.matched_gate.description ?? `what ${bundle.matched_gate.id} blocks`} (narrowed from ${bundle.matched_gate.id}: the call wrongly blocked at seq ${bundle.event.seq} is allowed)`,
    when: exclusion ? { all: [bundle.matched_gate.when, { not: exclusion }] } : bundle.matched_gate.when,
    ...(bundle.matched_gate.on_hit !== 'deny' ? { on_hit: bundle.matched_gate.on_hit } : {}),
    ...(bundle.matched_gate.require_strong ? { require_strong: true } : {}),
    // What the agent should do instead is unchanged by the narrowing.
    ...(bundle.matched_gate.nudge ? { nudge: bundle.matched_gate.nudge } : {}),
  }
  const notes = [
    `# Replacement for ${bundle.matched_gate.id} (${bundle.matched_gate.source}), drafted from the false positive at seq ${bundle.event.seq}.`,
    "# It keeps the gate's match block and excludes exactly the call that was wrongly blocked. Narrow it further",
    '# if you like; `svc false-positive apply <this dir>` validates it (it must not match the event and must still',
    '# block every malicious fixture) before anything is written.',
    ...(redacted
      ? ['# NOTE: the call was redacted in this bundle, so the exclusion below may not match it: re-run with', '# --include-raw (operator) or edit the pattern by hand.']
      : []),
    ...(exclusion ? [] : ['# TODO: this tool has no command or path to exclude; narrow `when` by hand.']),
  ]
  return { yaml: `${notes.join('\n')}\n${stringify(gate, { lineWidth: 0 })}`, exact: exclusion !== undefined && !redacted }
}
