/**
 * Deterministic validation of a replacement (SPEC "False-positive rules" 3-5): the bundle names a live case,
 * the replacement parses as one gate, it does not match the original event, and it still matches every
 * malicious example of the gate it replaces (the gate's fixtures plus any the caller adds, each of which the
 * original gate must match too). A replacement that lets an example through is refused with that example;
 * one that matches nothing is refused for want of any example it still blocks.
 */
import { evaluateNode, type CompiledGate, type Engine, type EvalRequest, type GateTrace } from '../../core/index.ts'
import { caseEvent, casePolicyHash, refusal, type CaseEvent } from './case-event.ts'
import { expandFixture, fixtureCall, fixturesOf, type Fixture, type WrittenFixture } from './fixtures.ts'
import type { PayloadStore } from './payload-store.ts'
import { planEdit, type PolicyEdit } from './policy-edit.ts'
import { redactValue } from '../../redaction/index.ts'
import { parseReplacement, type Replacement } from './replacement.ts'
import { resolveTarget, type TargetChoice, type TargetFile } from './target.ts'

export interface ValidateRequest {
  readonly bundle: { readonly event?: { readonly seq?: unknown }; readonly hashes?: { readonly leaf?: unknown }; readonly policy_hash?: unknown }
  readonly replacement_yaml: string
  readonly target?: TargetChoice
  readonly note?: string
  /** Extra malicious calls (fixture shape, `command:` shorthand allowed) the replacement must still block. */
  readonly examples?: readonly WrittenFixture[]
}

export interface Validated {
  readonly c: CaseEvent
  readonly target: TargetFile
  readonly replacement: Replacement
  readonly edit: PolicyEdit
  readonly policyHash: string
  readonly examplesChecked: number
  readonly examplesSkipped: number
  /** Other gates that would still deny the original event after the change. */
  readonly stillDeniedBy: readonly string[]
}

/** Runs every check; throws the first refusal (nothing is written here). */
export async function validateCase(engine: Engine, payloads: PayloadStore, body: ValidateRequest, now = Date.now()): Promise<Validated> {
  const seq = body.bundle.event?.seq
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) throw refusal(422, 'invalid_bundle', 'bundle.event.seq must be the integer seq of the case')
  const c = caseEvent(engine, payloads, seq, now)
  if (body.bundle.hashes?.leaf !== c.leafHash) throw refusal(409, 'bundle_mismatch', `the bundle's leaf hash does not match the ledger leaf at seq ${seq}`)
  if (engine.policy.isDisabled(c.gate) || (c.repo && engine.policy.repoDisables(c.repo).has(c.gate.id))) {
    throw refusal(409, 'already_replaced', `gate "${c.gate.id}" is already disabled by a false-positive replacement`)
  }
  const target = resolveTarget(engine, body.target ?? 'auto', c.payload.cwd, c.gate, now)
  const replacement = parseReplacement(engine, body.replacement_yaml, c.gate, target)
  const ctx = engine.evalContext()
  const trace: GateTrace[] = []
  const { request } = await engine.decide({ ...c.payload, input: c.payload.input, cwd: c.payload.cwd ?? undefined, source: c.leaf.source, sessionId: 'validate' }, undefined, trace)
  const stillMatches = evaluateNode(replacement.gate.node!, request, ctx)
  if (stillMatches !== undefined) {
    throw refusal(422, 'still_denies', `the replacement still matches the original event (${stillMatches})`, {
      example: redactValue({ tool: c.payload.tool, input: c.payload.input, cwd: c.payload.cwd }, 'example', ctx.home).value,
    })
  }
  const { checked, skipped } = await checkExamples(engine, c.gate, replacement.gate, [...maliciousFixtures(c.gate), ...(body.examples ?? []).map(expandFixture)])
  const edit = planEdit(engine, target, c.gate, replacement.value, { eventSeq: seq, at: new Date(now).toISOString(), note: body.note ?? `false positive at seq ${seq}` })
  const stillDeniedBy = [...new Set(trace.filter((t) => t.matched !== undefined && t.gate.onHit === 'deny' && t.gate.id !== c.gate.id).map((t) => t.gate.id))]
  return { c, target, replacement, edit, policyHash: casePolicyHash(engine, c.repo), examplesChecked: checked, examplesSkipped: skipped, stillDeniedBy }
}

/** The gate's own fixtures that it must deny (or monitor). */
export function maliciousFixtures(gate: CompiledGate): Fixture[] {
  return fixturesOf(gate.loc.file).filter((f) => f.expect !== 'allow' && f.rule === gate.id)
}

async function checkExamples(engine: Engine, original: CompiledGate, replacement: CompiledGate, examples: readonly Fixture[]): Promise<{ checked: number; skipped: number }> {
  const ctx = engine.evalContext()
  let checked = 0
  let skipped = 0
  for (const example of examples) {
    let request: EvalRequest
    try {
      ;({ request } = await engine.decide(fixtureCall(engine, example, ctx.home, ctx.home)))
    } catch (err) {
      throw refusal(422, 'invalid_example', `example ${describe(example)} cannot be decided: ${(err as Error).message}`)
    }
    // An example the original gate does not block here (it needs files this machine lacks) proves nothing.
    if (evaluateNode(original.node!, request, ctx) === undefined) {
      skipped++
      continue
    }
    checked++
    if (evaluateNode(replacement.node!, request, ctx) === undefined) {
      throw refusal(422, 'too_broad', `the replacement lets through ${describe(example)}, which "${original.id}" blocks: it drops the gate's intent`, { example })
    }
  }
  if (checked === 0) {
    throw refusal(
      422,
      'no_examples',
      `"${original.id}" has no malicious example the replacement could be checked against; add one (expect: deny, rule: ${original.id}) to the case's fixtures`,
    )
  }
  return { checked, skipped }
}

function describe(f: Fixture): string {
  return typeof f.input.command === 'string' ? `\`${f.input.command}\`` : `${f.tool} ${JSON.stringify(f.input)}`
}
