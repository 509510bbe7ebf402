/**
 * Compiles parsed gates into executable form: each `when` leaf is resolved to its gate-kind plugin once,
 * at load, and validated against the kind's schema. Unknown kinds and bad values are load errors that
 * name the file, the gate and the reason.
 */
import type { Ajv, ValidateFunction } from 'ajv'
import { EngineError, ERR } from '../errors.ts'
import { canonicalSha256 } from '../hash.ts'
import { newAjv } from '../lazy-ajv.ts'
import type { EngineHooks } from '../hooks.ts'
import { extensionRegistry, type GateKind, type JsonSchema, type Registries } from '../plugin.ts'
import type { CompiledGate, CompiledNode, DisabledBy, GateOrigin } from './compiled.ts'
import { nodeKeys } from './gate-index.ts'
import { drain, type Steps } from './steps.ts'
import type { CompiledEvaluator, OnHit, SourceLoc } from '../types.ts'
import type { RawGate } from './parse.ts'

/** Compiles gates of one file; ids must be unique within it. */
export class GateCompiler {
  readonly #registry: Registries
  readonly #hooks: EngineHooks
  #ajv?: Ajv
  #schemasChecked = false
  readonly #validators = new Map<string, ValidateFunction>()

  constructor(registry: Registries, hooks: EngineHooks) {
    this.#registry = registry
    this.#hooks = hooks
  }

  compileAll(gates: readonly RawGate[], origin: GateOrigin): CompiledGate[] {
    return drain(this.compileSteps(gates, origin))
  }

  /** compileAll as steps: yields after every gate, so a big file can compile between requests (steps.ts). */
  *compileSteps(gates: readonly RawGate[], origin: GateOrigin): Steps<CompiledGate[]> {
    const seen = new Set<string>()
    const out: CompiledGate[] = []
    for (const raw of gates) {
      const id = raw.value.id as string
      if (seen.has(id)) throw new EngineError(ERR.POLICY_INVALID, `gate "${id}" is defined twice in this file`, { loc: raw.loc })
      seen.add(id)
      out.push(this.compile(raw, origin))
      yield
    }
    return out
  }

  compile(raw: RawGate, origin: GateOrigin): CompiledGate {
    // A gate from the parse cache passed these exact schemas before: only the kinds' own compile runs again.
    this.#schemasChecked = raw.checked === true
    try {
      return this.#compileGate(raw, origin)
    } finally {
      this.#schemasChecked = false
    }
  }

  /** Identifies every gate and evaluator kind's schema (the parse cache keys on it). */
  schemaFingerprint(): string {
    const kinds = (map: ReadonlyMap<string, { readonly schema: JsonSchema }>) => [...map].map(([name, kind]) => [name, kind.schema])
    return canonicalSha256({ gates: kinds(this.#registry.gateKinds), evaluators: kinds(this.#registry.evaluatorKinds) })
  }

  #compileGate(raw: RawGate, origin: GateOrigin): CompiledGate {
    const g = raw.value
    const id = g.id as string
    const when = (g.when ?? g.match) as Record<string, unknown> | undefined
    const disabled = g.disabled === true
    if (!when && !disabled) throw new EngineError(ERR.POLICY_INVALID, `gate "${id}" needs a \`when\` (or \`match\`) block`, { loc: raw.loc })
    const evaluate = (g.evaluate ?? []) as Record<string, unknown>[]
    const evaluators = evaluate.map((entry, i) => this.#compileEvaluator(entry, raw, i))
    if (evaluators.length > 0) {
      const locate = (key: string) => raw.locate?.([key]) ?? raw.loc
      if (g.when !== undefined || g.match === undefined) {
        throw new EngineError(ERR.POLICY_INVALID, `gate "${id}": a gate with \`evaluate\` selects its calls with \`match\` (not \`when\`)`, {
          loc: locate(g.when !== undefined ? 'when' : 'evaluate'),
        })
      }
      for (const key of ['on_hit', 'require_strong', 'nudge'] as const) {
        if (g[key] !== undefined)
          throw new EngineError(ERR.POLICY_INVALID, `gate "${id}": \`${key}\` has no meaning on a guardrail gate (its evaluators' on_threshold decide)`, { loc: locate(key) })
      }
    }
    const node = when ? this.#compileNode(when, id, raw.loc, 'when') : undefined
    const keys = node ? nodeKeys(node) : undefined
    return {
      id,
      description: g.description as string | undefined,
      ...origin,
      loc: raw.loc,
      onHit: origin.severity && g.on_hit !== 'allow' ? origin.severity : ((g.on_hit as OnHit | undefined) ?? 'deny'),
      requireStrong: g.require_strong === true,
      nudge: g.nudge as string | undefined,
      disabled,
      disabledBy: g.disabled_by as DisabledBy | undefined,
      when: when ?? {},
      evaluate,
      evaluators,
      fingerprint: canonicalSha256({ source: origin.source, gate: g }),
      node,
      ...(keys ? { keys } : {}),
    }
  }

  #compileEvaluator(entry: Record<string, unknown>, raw: RawGate, index: number): CompiledEvaluator {
    const gateId = raw.value.id as string
    const loc = (path: readonly (string | number)[]) => raw.locate?.(['evaluate', index, ...path]) ?? raw.loc
    const kind = this.#registry.evaluatorKinds.get(String(entry.kind))
    if (!kind) {
      const known = [...this.#registry.evaluatorKinds.keys()].sort().join(', ') || 'none registered'
      throw new EngineError(ERR.GATE_UNKNOWN_KIND, `gate "${gateId}": evaluator kind "${String(entry.kind)}" is not yet implemented (known: ${known})`, { loc: loc(['kind']) })
    }
    const validate = this.#schemasChecked ? undefined : this.#validator(`evaluator:${kind.kind}`, kind.schema)
    if (validate && !validate(entry)) {
      const err = validate.errors?.[0]
      const path = (err?.instancePath ?? '')
        .split('/')
        .slice(1)
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p))
      const extra = err?.keyword === 'additionalProperties' ? ` "${(err.params as { additionalProperty: string }).additionalProperty}"` : ''
      throw new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${gateId}": evaluate[${index}]${path.map((p) => `.${p}`).join('')} ${err?.message ?? 'is invalid'}${extra}`, {
        loc: loc(path),
      })
    }
    return kind.compile(entry, { gateId, loc })
  }

  #validator(key: string, schema: JsonSchema): ValidateFunction {
    let validate = this.#validators.get(key)
    if (!validate) this.#validators.set(key, (validate = (this.#ajv ??= newAjv()).compile(schema)))
    return validate
  }

  #compileNode(node: unknown, gateId: string, loc: SourceLoc, path: string): CompiledNode {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      throw new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${gateId}": ${path} must be a mapping of predicates`, { loc })
    }
    const entries = Object.entries(node)
    if (entries.length === 0) throw new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${gateId}": ${path} is empty (it would match every call)`, { loc })
    const nodes = entries.map(([key, value]) => this.#compileEntry(key, value, gateId, loc, `${path}.${key}`))
    return nodes.length === 1 ? nodes[0]! : { op: 'all', nodes }
  }

  #compileEntry(key: string, value: unknown, gateId: string, loc: SourceLoc, path: string): CompiledNode {
    if (key === 'all' || key === 'any') {
      if (!Array.isArray(value) || value.length === 0) {
        throw new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${gateId}": ${path} must be a non-empty list`, { loc })
      }
      return { op: key, nodes: value.map((v, i) => this.#compileNode(v, gateId, loc, `${path}[${i}]`)) }
    }
    if (key === 'not') return { op: 'not', node: this.#compileNode(value, gateId, loc, path) }
    const kind = this.#registry.gateKinds.get(key)
    if (!kind) {
      const known = [...this.#registry.gateKinds.keys(), 'all', 'any', 'not'].sort().join(', ')
      throw new EngineError(ERR.GATE_UNKNOWN_KIND, `gate "${gateId}": unknown predicate "${key}" at ${path} (known: ${known})`, { loc })
    }
    value = spliceLists(value, extensionRegistry<readonly string[]>(this.#registry, 'policy-list'))
    this.#validate(kind, value, gateId, loc, path)
    let test
    try {
      test = kind.compile(value, { gateId, loc })
    } catch (cause) {
      if (cause instanceof EngineError) throw cause
      throw new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${gateId}": ${path}: ${(cause as Error).message}`, { cause, loc })
    }
    const keys = kind.index?.(value)
    return { op: 'leaf', leaf: { kind: key, test, ...(keys ? { keys } : {}) }, hook: this.#hooks.evaluate.for(key) }
  }

  #validate(kind: GateKind, value: unknown, gateId: string, loc: SourceLoc, path: string): void {
    if (this.#schemasChecked) return
    const validate = this.#validator(kind.kind, kind.schema)
    if (!validate(value)) {
      const err = validate.errors?.[0]
      const where = err?.instancePath ? `${path}${err.instancePath.replaceAll('/', '.')}` : path
      const extra = err?.keyword === 'additionalProperties' ? ` "${(err.params as { additionalProperty: string }).additionalProperty}"` : ''
      throw new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${gateId}": ${where} ${err?.message ?? 'is invalid'}${extra}`, { loc })
    }
  }
}

/** `value` with every item (or string) naming a policy list (plugin.ts addToPolicyList) replaced by the list's items. */
function spliceLists(value: unknown, lists: ReadonlyMap<string, readonly string[]>): unknown {
  if (lists.size === 0 || value === null || typeof value !== 'object') return typeof value === 'string' && lists.has(value) ? [...lists.get(value)!] : value
  if (Array.isArray(value)) return value.flatMap((v): unknown[] => (typeof v === 'string' && lists.has(v) ? [...lists.get(v)!] : [spliceLists(v, lists)]))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, spliceLists(v, lists)]))
}
