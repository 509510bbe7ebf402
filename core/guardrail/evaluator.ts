/**
 * The `llm_guardrail` evaluator kind: parses and validates a gate's `evaluate` entries at policy load
 * (model ids against the catalog, field paths, threshold expressions, durations), each error at the
 * YAML line:col of the offending value.
 */
import { parseDuration } from '../duration.ts'
import { EngineError, ERR } from '../errors.ts'
import { registerOnce, type EnginePlugin, type EvaluatorKind, type EvaluatorWhere } from '../plugin.ts'
import { guardrailCatalog } from './catalog.ts'
import type { CatalogEntry, CompiledEvaluator } from '../types.ts'

import { parseComparison } from './severity.ts'
import type { Threshold } from '../types.ts'

/** Used when an entry names no `max_latency`: a guardrail may add at most this to a hook call. */
export const DEFAULT_MAX_LATENCY_MS = 2000
/** Upper bound on `max_latency` (a hook must never hang on a classifier). */
export const MAX_LATENCY_CAP_MS = 30_000

const FIELD = '^(input)\\.[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$'
const CONTEXT_FIELD = '^(input|session)\\.[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$'

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'model', 'prompt_field', 'on_threshold'],
  properties: {
    kind: { const: 'llm_guardrail' },
    model: { type: 'string', minLength: 1 },
    prompt_field: { type: 'string', pattern: FIELD },
    context_fields: { type: 'array', maxItems: 16, items: { type: 'string', pattern: CONTEXT_FIELD } },
    on_threshold: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['category', 'severity', 'action'],
        properties: { category: { type: 'string', minLength: 1 }, severity: { type: 'string' }, action: { enum: ['deny', 'monitor'] } },
      },
    },
    cache_ttl: { type: 'string' },
    max_latency: { type: 'string' },
  },
} as const

interface RawEntry {
  model: string
  prompt_field: string
  context_fields?: string[]
  on_threshold: { category: string; severity: string; action: 'deny' | 'monitor' }[]
  cache_ttl?: string
  max_latency?: string
}

function duration(text: string | undefined, fallback: number, where: EvaluatorWhere, key: string): number {
  if (text === undefined) return fallback
  try {
    return parseDuration(text)
  } catch (cause) {
    throw new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${where.gateId}": evaluate.${key}: ${(cause as Error).message}`, { cause, loc: where.loc([key]) })
  }
}

/** Compiles one schema-valid `llm_guardrail` entry against the catalog. */
export function compileLlmGuardrail(value: RawEntry, where: EvaluatorWhere, catalog: ReadonlyMap<string, CatalogEntry>): CompiledEvaluator {
  const bad = (path: (string | number)[], message: string) =>
    new EngineError(ERR.GATE_CONFIG_INVALID, `gate "${where.gateId}": evaluate.${path.join('.')}: ${message}`, { loc: where.loc(path) })
  const model = catalog.get(value.model)
  if (!model) {
    const known = [...catalog.keys()].sort().join(', ') || 'none: no guardrail provider is registered'
    throw bad(['model'], `unknown model "${value.model}" (known: ${known})`)
  }
  const thresholds = value.on_threshold.map((t, i): Threshold => {
    if (t.category !== 'any' && !model.categories.includes(t.category)) {
      throw bad(['on_threshold', i, 'category'], `"${t.category}" is not a category of ${model.id} (use any, or one of ${model.categories.join(', ')})`)
    }
    try {
      return { category: t.category, ...parseComparison(t.severity), action: t.action }
    } catch (cause) {
      throw bad(['on_threshold', i, 'severity'], (cause as Error).message)
    }
  })
  const maxLatencyMs = duration(value.max_latency, DEFAULT_MAX_LATENCY_MS, where, 'max_latency')
  if (maxLatencyMs <= 0 || maxLatencyMs > MAX_LATENCY_CAP_MS) throw bad(['max_latency'], `must be above 0 and at most ${MAX_LATENCY_CAP_MS / 1000}s`)
  return {
    kind: 'llm_guardrail',
    model,
    promptField: value.prompt_field,
    contextFields: value.context_fields ?? [],
    thresholds,
    cacheTtlMs: duration(value.cache_ttl, 0, where, 'cache_ttl'),
    maxLatencyMs,
  }
}

/** The engine plugin that makes `kind: llm_guardrail` parse; provider plugins depend on it. */
export const llmGuardrailEvaluator: EnginePlugin = {
  name: 'evaluator:llm_guardrail',
  apply({ registry }) {
    const catalog = guardrailCatalog(registry)
    const kind: EvaluatorKind = {
      kind: 'llm_guardrail',
      description: 'Asks a guardrail classifier (a catalog model) about one tool-call field after a local allow; thresholds decide.',
      schema,
      compile: (value, where) => compileLlmGuardrail(value as RawEntry, where, catalog),
    }
    registerOnce(registry.evaluatorKinds, kind.kind, kind, 'evaluator:llm_guardrail')
  },
}
