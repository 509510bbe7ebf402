/**
 * The false-positive case bundle (SPEC "False-positive case bundle"): built only from the ledger leaf, the
 * stored call and the live policy, redacted by the one redaction function and serialised as canonical JSON
 * (RFC 8785), so the same event under the same policy always yields the same bytes. `created_at` is the
 * event's own time, never the clock.
 */
import canonicalize from 'canonicalize'
import type { CallPayload, CompiledGate } from '../../core/index.ts'
import type { CaseEvent } from './case-event.ts'
import { redactText, redactValue, REDACTION_VERSION, type RedactionChange } from '../../redaction/index.ts'

export const BUNDLE_SCHEMA_VERSION = 1

const PATH_KEYS = ['file_path', 'path', 'notebook_path', 'absolute_path', 'target_file', 'filename'] as const

/** The input summary every surface shows: command, path, URL and cwd, plus the whole (redacted) tool input. */
export function inputSummary(payload: CallPayload): Record<string, unknown> {
  const input = payload.input
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
  const path = PATH_KEYS.map((k) => str(input[k])).find((v) => v !== undefined)
  return {
    ...(str(input.command) !== undefined ? { command: input.command } : {}),
    ...(path !== undefined ? { path } : {}),
    ...(str(input.url) !== undefined ? { url: input.url } : {}),
    ...(payload.cwd !== null ? { cwd: payload.cwd } : {}),
    tool_input: input,
  }
}

/** The redacted summary of a call (used by bundles and by `svc log`). */
export function redactedSummary(payload: CallPayload, home: string): { input: Record<string, unknown>; changes: readonly RedactionChange[] } {
  const r = redactValue(inputSummary(payload), 'input', home)
  return { input: r.value, changes: r.changes }
}

/** The matched gate as bundles show it: source, mode, disabled state, its match block, an evaluator summary. */
export function gateView(gate: CompiledGate, disabled: boolean, home: string) {
  return {
    id: gate.id,
    source: redactText(gate.source, home).text,
    layer: gate.layer,
    mode: gate.policyMode,
    on_hit: gate.onHit,
    require_strong: gate.requireStrong,
    disabled,
    when: gate.when,
    evaluators: gate.evaluate.map((e) => ({ kind: String(e.kind), ...(typeof e.model === 'string' ? { model: e.model } : {}) })),
    ...(gate.description ? { description: gate.description } : {}),
    ...(gate.nudge ? { nudge: gate.nudge } : {}),
    file: redactText(gate.loc.file, home).text,
    fingerprint: gate.fingerprint,
  }
}

/** Builds the bundle object; `raw` only when the caller has the right to it and asked. */
export function buildBundle(c: CaseEvent, opts: { policyHash: string; home: string; disabled: boolean; raw: boolean }): Record<string, unknown> {
  const { leaf } = c
  const summary = redactedSummary(c.payload, opts.home)
  const trace = redactValue(leaf.policy_trace, 'policy_trace', opts.home)
  return {
    schema_version: BUNDLE_SCHEMA_VERSION,
    created_at: new Date(leaf.ts_ms).toISOString(),
    event: { seq: leaf.seq, source: leaf.source, tool: leaf.tool, verdict: leaf.verdict, monitor_match: leaf.monitor_match, rule_id: leaf.rule_id, tool_use_id: leaf.tool_use_id },
    input: summary.input,
    policy_trace: trace.value,
    matched_gate: gateView(c.gate, opts.disabled, opts.home),
    hashes: { payload: leaf.payload_hash, leaf: c.leafHash, previous_leaf: leaf.prev_leaf_hash },
    redaction: { version: REDACTION_VERSION, changed: [...summary.changes, ...trace.changes] },
    policy_hash: opts.policyHash,
    raw_included: opts.raw,
    ...(opts.raw ? { raw: c.payload } : {}),
  }
}

/** The bundle's exact bytes: canonical JSON. */
export function bundleBytes(bundle: Record<string, unknown>): string {
  return canonicalize(bundle)!
}
