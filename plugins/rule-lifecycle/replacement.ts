/**
 * A replacement gate as the user (or an agent's skill) wrote it: untrusted text until it parses as exactly
 * one gate of the policy schema, compiles with the daemon's gate kinds, denies (or monitors, like the gate it
 * replaces) and never allows, disables nothing and reuses no live gate id.
 */
import { isMap, isSeq, parseDocument } from 'yaml'
import { EngineError, gateSchema, lazyValidator, type CompiledGate, type Engine, type LayerName, type Mode } from '../../core/index.ts'
import { refusal } from './case-event.ts'
import { compilerFor } from './compiler.ts'

/** Largest replacement text accepted. */
export const MAX_REPLACEMENT_BYTES = 64 * 1024

const gateValidator = lazyValidator(gateSchema)

export interface ReplacementTarget {
  readonly layer: LayerName
  readonly source: string
  readonly path: string
  readonly mode: Mode
}

export interface Replacement {
  /** The gate as written (plain data, to append to the target file). */
  readonly value: Record<string, unknown>
  readonly gate: CompiledGate
}

/** Parses and compiles the replacement for `original`; every problem is a 422 `invalid_replacement`. */
export function parseReplacement(engine: Engine, yamlText: string, original: CompiledGate, target: ReplacementTarget): Replacement {
  const bad = (detail: string) => refusal(422, 'invalid_replacement', `replacement gate: ${detail}`)
  if (Buffer.byteLength(yamlText) > MAX_REPLACEMENT_BYTES) throw bad(`larger than ${MAX_REPLACEMENT_BYTES} bytes`)
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors[0]) throw bad(`invalid YAML: ${doc.errors[0].message.split('\n')[0]}`)
  let value: unknown = doc.toJS({ maxAliasCount: 10 })
  // A one-gate list (`gates: [...]` or `- id: ...`) is accepted as well as the bare mapping.
  if (isMap(doc.contents) && value && typeof value === 'object' && 'gates' in value) value = (value as { gates: unknown }).gates
  if (isSeq(doc.contents) || Array.isArray(value)) {
    const list = value as unknown[]
    if (list.length !== 1) throw bad(`must be exactly one gate, found ${list.length}`)
    value = list[0]
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('must be a YAML mapping with `id` and `when`')
  const validateGate = gateValidator()
  if (!validateGate(value)) {
    const err = validateGate.errors?.[0]
    const field =
      err?.keyword === 'additionalProperties'
        ? `unknown field "${(err.params as { additionalProperty: string }).additionalProperty}"`
        : `${err?.instancePath || 'gate'} ${err?.message ?? 'is invalid'}`
    throw bad(field)
  }
  const gate = value as unknown as Record<string, unknown>
  if (gate.disabled !== undefined || gate.disabled_by !== undefined) throw bad('must not carry `disabled` or `disabled_by` (only the daemon writes those)')
  if (gate.when === undefined && gate.match === undefined) throw bad('needs a `when` block')
  if (gate.on_hit === 'allow') throw bad('must not be an allow exception (`on_hit: allow`): it narrows the gate it replaces')
  const onHit = gate.on_hit ?? 'deny'
  if (onHit !== original.onHit && !(original.onHit === 'monitor' && onHit === 'deny')) throw bad(`on_hit ${String(onHit)} is looser than the replaced gate's ${original.onHit}`)
  if (original.requireStrong && gate.require_strong !== true) throw bad('must keep `require_strong: true` like the gate it replaces')
  const id = gate.id as string
  if (id === original.id) throw bad(`needs its own id, not "${original.id}" (the replaced gate keeps that id, disabled)`)
  if (engine.policy.allGates().some((g) => g.id === id)) throw bad(`id "${id}" is already used by a live gate`)
  let compiled: CompiledGate
  try {
    compiled = compilerFor(engine).compile({ value: gate, loc: { file: target.path } }, { layer: target.layer, source: target.source, policyMode: target.mode })
  } catch (err) {
    if (err instanceof EngineError) throw bad(err.message)
    throw err
  }
  return { value: gate, gate: compiled }
}
