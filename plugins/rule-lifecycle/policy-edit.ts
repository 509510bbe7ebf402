/**
 * The one edit a false-positive apply makes to a policy file: mark the replaced gate `disabled: true` with its
 * sealed `disabled_by` (in place when the gate lives in this file, else as a marker entry with its id) and
 * append the replacement. Comments and layout of the rest of the file are kept. The result must load.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createTwoFilesPatch } from 'diff'
import { isMap, isSeq, parseDocument } from 'yaml'
import { EngineError, parsePolicy, type CompiledGate, type DisabledBy, type Engine } from '../../core/index.ts'
import { refusal } from './case-event.ts'
import { compilerFor } from './compiler.ts'
import type { TargetFile } from './target.ts'

export interface PolicyEdit {
  readonly path: string
  /** Exact bytes before (null: the file did not exist). */
  readonly before: string | null
  readonly after: string
  readonly disabledBy: DisabledBy
  readonly diff: string
}

const EMPTY_POLICY = 'version: 1\ngates: []\n'

/** Plans the edit (nothing is written); refuses when the resulting file would not load. */
export function planEdit(
  engine: Engine,
  target: TargetFile,
  original: CompiledGate,
  replacement: Record<string, unknown>,
  facts: { eventSeq: number; at: string; note: string },
): PolicyEdit {
  const before = existsSync(target.path) ? readFileSync(target.path, 'utf8') : null
  const doc = parseDocument(before ?? EMPTY_POLICY, { uniqueKeys: true })
  if (doc.errors.length > 0 || !isMap(doc.contents)) throw refusal(422, 'target_invalid', `the target policy file ${target.path} does not parse; fix it first`)
  if (!doc.has('gates') || !isSeq(doc.get('gates', true))) doc.set('gates', doc.createNode([]))
  const gates = doc.get('gates', true)
  if (!isSeq(gates)) throw refusal(422, 'target_invalid', `${target.path}: gates is not a list`)
  gates.flow = false
  const unsealed = { event_seq: facts.eventSeq, at: facts.at, replacement_id: String(replacement.id), note: facts.note }
  const seal = engine.sealer.seal({ gate_id: original.id, file: target.path, ...unsealed })
  const disabledBy: DisabledBy = { ...unsealed, seal }
  const inPlace = original.loc.file === target.path ? gates.items.find((item) => isMap(item) && item.get('id') === original.id) : undefined
  if (inPlace && isMap(inPlace)) {
    inPlace.set('disabled', true)
    inPlace.set('disabled_by', doc.createNode(disabledBy))
  } else {
    gates.add(doc.createNode({ id: original.id, description: `disabled by a false-positive replacement (${original.source})`, disabled: true, disabled_by: disabledBy }))
  }
  gates.add(doc.createNode(replacement))
  const after = doc.toString({ lineWidth: 0 })
  checkLoads(engine, target, after)
  const diff = createTwoFilesPatch(target.path, target.path, before ?? '', after, before === null ? '(absent)' : 'current', 'after apply')
  return { path: target.path, before, after, disabledBy, diff }
}

/** The edited file must parse and compile with the daemon's gate kinds, or nothing is written. */
export function checkLoads(engine: Engine, target: TargetFile, text: string): CompiledGate[] {
  try {
    const parsed = parsePolicy(text, target.path)
    return compilerFor(engine).compileAll(parsed.gates, { layer: target.layer, source: target.source, policyMode: parsed.mode })
  } catch (err) {
    if (err instanceof EngineError) throw refusal(422, 'target_invalid', `the edited policy file would not load: ${err.message}`)
    throw err
  }
}
