/**
 * Parses policy YAML into plain objects with source locations. Every error names the file, the line
 * and column, and what was wrong; nothing here compiles gates (see compile.ts).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { ErrorObject } from 'ajv'
import type { Document, LineCounter } from 'yaml'
import { EngineError, ERR } from '../errors.ts'
import { lazyValidator } from '../lazy-ajv.ts'
import { sha256 } from '../hash.ts'
import type { Mode, SourceLoc } from '../types.ts'
import { groupPolicyFileSchema, policyFileSchema } from './schema.ts'

/** Largest policy file accepted (a registry rule is small; this bounds parse time). */
export const MAX_POLICY_BYTES = 1024 * 1024

/** A gate as written, with where it was written. */
export interface RawGate {
  readonly value: Readonly<Record<string, unknown>>
  readonly loc: SourceLoc
  /** Where a value inside this gate was written (e.g. `['evaluate', 0, 'model']`); the gate's own place when unknown. */
  readonly locate?: (path: readonly (string | number)[]) => SourceLoc
  /** True when this gate comes from the parse cache: it passed the current schemas at an earlier load. */
  readonly checked?: boolean
}

export interface ParsedPolicy {
  readonly file: string
  readonly mode: Mode
  readonly gates: readonly RawGate[]
}

/** A group policy: gate lists selected by group name and by user id. */
export interface ParsedGroupPolicy {
  readonly file: string
  readonly mode: Mode
  readonly groups: ReadonlyMap<string, readonly RawGate[]>
  readonly users: ReadonlyMap<string, readonly RawGate[]>
}

// ajv and yaml load on first use: a start whose policy files all come from the parse cache needs neither.
const require = createRequire(import.meta.url)
const yaml = (): typeof import('yaml') => require('yaml')
const policyValidator = lazyValidator(policyFileSchema)
const groupValidator = lazyValidator(groupPolicyFileSchema)

/** Identifies this parser and the policy schemas (their source text), so the parse cache notices a change of either. */
export function parserFingerprint(): string {
  return sha256(['parse.ts', 'schema.ts'].map((name) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8')).join('\0'))
}

/** Parses a regular policy file (daemon, registry, user or repo layer). */
export function parsePolicy(text: string, file: string): ParsedPolicy {
  const { doc, lines, data } = parseYaml(text, file)
  const validatePolicyFile = policyValidator()
  if (!validatePolicyFile(data)) throw schemaError(validatePolicyFile.errors, doc, lines, file)
  const policy = data as { mode?: Mode; gates?: Record<string, unknown>[] }
  return { file, mode: policy.mode ?? 'firewall', gates: locateGates(policy.gates ?? [], doc, lines, file, ['gates']) }
}

/** Parses `$SVC_HOME/group-policy.yaml`. */
export function parseGroupPolicy(text: string, file: string): ParsedGroupPolicy {
  const { doc, lines, data } = parseYaml(text, file)
  const validateGroupFile = groupValidator()
  if (!validateGroupFile(data)) throw schemaError(validateGroupFile.errors, doc, lines, file)
  const policy = data as { mode?: Mode; groups?: Record<string, { gates: Record<string, unknown>[] }>; users?: Record<string, { gates: Record<string, unknown>[] }> }
  const section = (key: 'groups' | 'users') =>
    new Map(Object.entries(policy[key] ?? {}).map(([name, entry]) => [name, locateGates(entry.gates, doc, lines, file, [key, name, 'gates'])]))
  return { file, mode: policy.mode ?? 'firewall', groups: section('groups'), users: section('users') }
}

function parseYaml(text: string, file: string): { doc: Document; lines: LineCounter; data: unknown } {
  if (Buffer.byteLength(text) > MAX_POLICY_BYTES) {
    throw new EngineError(ERR.POLICY_INVALID, `policy file is larger than ${MAX_POLICY_BYTES} bytes`, { loc: { file } })
  }
  const { LineCounter, parseDocument } = yaml()
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const first = doc.errors[0]
  if (first) {
    const pos = lines.linePos(first.pos[0])
    throw new EngineError(ERR.POLICY_INVALID, `invalid YAML: ${first.message.split('\n')[0]}`, { loc: { file, line: pos.line, col: pos.col } })
  }
  let data: unknown
  try {
    data = doc.toJS({ maxAliasCount: 100 })
  } catch (cause) {
    throw new EngineError(ERR.POLICY_INVALID, `invalid YAML: ${(cause as Error).message}`, { cause, loc: { file } })
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new EngineError(ERR.POLICY_INVALID, 'a policy file must be a YAML mapping with `version` and `gates`', { loc: { file, line: 1, col: 1 } })
  }
  return { doc, lines, data }
}

function locateGates(gates: Record<string, unknown>[], doc: Document, lines: LineCounter, file: string, path: string[]): RawGate[] {
  const { isMap, isSeq } = yaml()
  const seq = doc.getIn(path, true)
  return gates.map((value, i) => {
    const node = isSeq(seq) ? seq.items[i] : undefined
    const offset = isMap(node) && node.range ? node.range[0] : undefined
    const pos = offset === undefined ? undefined : lines.linePos(offset)
    const loc: SourceLoc = { file, line: pos?.line, col: pos?.col }
    const locate = (inner: readonly (string | number)[]): SourceLoc => {
      const found = isMap(node) ? (node.getIn(inner, true) as { range?: [number, number, number] } | undefined) : undefined
      const at = found?.range ? lines.linePos(found.range[0]) : undefined
      return at ? { file, line: at.line, col: at.col } : loc
    }
    return { value, loc, locate }
  })
}

function schemaError(errors: ErrorObject[] | null | undefined, doc: Document, lines: LineCounter, file: string): EngineError {
  const err = errors?.[0]
  const path = (err?.instancePath ?? '')
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p))
  const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined
  const pos = node?.range ? lines.linePos(node.range[0]) : undefined
  const where = err?.instancePath ? `at ${err.instancePath}` : 'at the top level'
  const detail =
    err?.keyword === 'additionalProperties'
      ? `unknown field "${(err.params as { additionalProperty: string }).additionalProperty}"`
      : err?.keyword === 'enum'
        ? `must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
        : (err?.message ?? 'does not match the policy schema')
  return new EngineError(ERR.POLICY_INVALID, `${where}: ${detail}`, { loc: { file, line: pos?.line, col: pos?.col } })
}
