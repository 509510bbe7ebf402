/**
 * `defineGuardrailProvider`: a provider is one folder whose adapter maps a vendor answer to
 * `{safe, categories, rationale}`; this helper makes it spec-correct by construction. Any throw, HTTP
 * error, malformed or truncated answer, or a time over `max_latency` becomes a traced abstention; the
 * tap returns only a deny (which stops the hook). The credential is read once from `<PROVIDER>_API_KEY`
 * at start, kept in this closure only, and scrubbed from every message.
 */
import {
  categoriesMeeting,
  envPrefix,
  GuardrailFailure,
  guardrailCatalog,
  guardrailProviders,
  isSeverity,
  registerOnce,
  STAGE,
  type CatalogEntry,
  type ClassifierResult,
  type EvalContext,
  type EvalRequest,
  type GateEvaluator,
  type GuardrailProviderDefinition,
  type GuardrailProviderPlugin,
  type GuardrailVerdict,
  type ProviderInput,
  type ProviderRuntime,
} from '../../core/index.ts'
import { ClassificationCache } from './cache.ts'

/** Turns a provider definition into the plugin that registers its runtime and models and taps the guardrail hook. */
export function defineGuardrailProvider(definition: GuardrailProviderDefinition): GuardrailProviderPlugin {
  const name = `guardrail:${definition.id}`
  return {
    name,
    dependsOn: ['evaluator:llm_guardrail'],
    provider: definition,
    apply({ hooks, registry, env }) {
      const runtime = createProviderRuntime(definition, env)
      registerOnce(guardrailProviders(registry), definition.id, runtime, name)
      for (const model of runtime.models) registerOnce(guardrailCatalog(registry), model.id, model, name)
      hooks.guardrail.tapPromise({ name, stage: definition.stage ?? STAGE.EXPENSIVE }, async (round) => {
        for (const item of round.evaluators) {
          const model = item.evaluator.model
          if (model.provider !== definition.id || model.kind !== 'classifier_model') continue
          const verdict = await runtime.evaluate(item, round.request, round.ctx)
          round.verdicts.push(verdict)
          if (verdict.effect === 'deny') return verdict
        }
        return undefined
      })
    },
  }
}

/** Builds the runtime of one provider from the start-up environment (also what the provider test kit drives). */
export function createProviderRuntime(definition: GuardrailProviderDefinition, env: Readonly<Record<string, string | undefined>>): ProviderRuntime {
  const prefix = envPrefix(definition.id)
  const credentialEnv = `${prefix}_API_KEY`
  const key = env[credentialEnv] || undefined
  const baseUrl = env[`${prefix}_BASE_URL`] || definition.defaultBaseUrl
  const configured = baseUrl !== undefined && (key !== undefined || !definition.needsKey)
  const headers = key === undefined ? {} : definition.authHeaders(key)
  const scrub = (text: string) => (key === undefined ? text : text.replaceAll(key, '[redacted]'))
  const models = definition.models.map((m): CatalogEntry => ({ ...m, id: `${definition.id}/${m.model}`, provider: definition.id }))
  const cache = new ClassificationCache()

  async function classify(input: ProviderInput, maxLatencyMs: number): Promise<ClassifierResult> {
    if (!configured) {
      const missing = baseUrl === undefined ? `${prefix}_BASE_URL` : credentialEnv
      throw new GuardrailFailure('not_configured', `${definition.id} is not configured: set ${missing} in the daemon's environment`, false)
    }
    const controller = new AbortController()
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort()
        reject(new GuardrailFailure('timeout', `no answer within max_latency (${maxLatencyMs} ms)`, false))
      }, maxLatencyMs)
    })
    try {
      const result = await Promise.race([definition.classify(input, { baseUrl: baseUrl!, headers, signal: controller.signal }), deadline])
      return checkResult(result)
    } catch (err) {
      if (err instanceof GuardrailFailure) throw new GuardrailFailure(err.kind, scrub(err.message), err.reachable)
      throw new GuardrailFailure('provider_error', scrub(`adapter failed: ${(err as Error)?.message ?? String(err)}`))
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    id: definition.id,
    title: definition.title,
    baseUrl: baseUrl === undefined ? undefined : displayUrl(baseUrl),
    credentialEnv,
    configured,
    models,
    async evaluate(item, request, ctx) {
      const { evaluator } = item
      const started = performance.now()
      const base = { index: item.index, gateId: item.gateId, provider: definition.id, model: evaluator.model.id }
      const elapsed = () => Math.round((performance.now() - started) * 100) / 100
      try {
        const text = fieldText(evaluator.promptField, request, ctx)
        if (text === undefined) throw new GuardrailFailure('missing_field', `the call has no ${evaluator.promptField}`, false)
        const context = evaluator.contextFields.flatMap((field) => {
          const value = fieldText(field, request, ctx)
          return value === undefined ? [] : [{ field, value }]
        })
        const cacheKey = ClassificationCache.key({ provider: definition.id, model: evaluator.model.id, text, context })
        const hit = evaluator.cacheTtlMs > 0 ? cache.get(cacheKey, Date.now()) : undefined
        const result = hit ?? (await classify({ text, context, model: evaluator.model }, evaluator.maxLatencyMs))
        if (!hit) cache.set(cacheKey, result, evaluator.cacheTtlMs, Date.now())
        return { ...base, ...judge(result, evaluator.thresholds), categories: result.categories, latencyMs: elapsed(), cached: hit !== undefined }
      } catch (err) {
        const failure = err instanceof GuardrailFailure ? err : new GuardrailFailure('provider_error', scrub(String((err as Error)?.message ?? err)))
        const detail = scrub(failure.message)
        return { ...base, effect: 'abstain', reason: `abstained (${failure.kind}): ${detail}`, latencyMs: elapsed(), cached: false, abstained: { kind: failure.kind, detail } }
      }
    },
    async test(model, text, maxLatencyMs) {
      const started = performance.now()
      const latency = () => Math.round(performance.now() - started)
      try {
        const result = await classify({ text, context: [], model }, maxLatencyMs)
        return { provider: definition.id, model: model.id, reachable: true, latency_ms: latency(), result }
      } catch (err) {
        const failure = err as GuardrailFailure
        return { provider: definition.id, model: model.id, reachable: failure.reachable, latency_ms: latency(), abstained: { kind: failure.kind, detail: scrub(failure.message) } }
      }
    },
  }
}

/** Applies the evaluator's thresholds: any deny threshold met denies, else a monitor one alerts, else allow. */
function judge(result: ClassifierResult, thresholds: GateEvaluator['evaluator']['thresholds']): Pick<GuardrailVerdict, 'effect' | 'reason' | 'matched'> {
  let monitor: Pick<GuardrailVerdict, 'effect' | 'reason' | 'matched'> | undefined
  for (const t of thresholds) {
    const matched = categoriesMeeting(result, t)
    if (matched.length === 0) continue
    const found = matched.map((c) => `${c}=${result.categories[c]?.severity ?? 'none'}`).join(', ')
    const verdict = { effect: t.action, reason: `${found} meets ${t.category} ${t.op} ${t.severity}`, matched }
    if (t.action === 'deny') return verdict
    monitor ??= verdict
  }
  if (monitor) return monitor
  return { effect: 'allow', reason: result.safe ? 'classified safe' : `flagged below every threshold (${result.rationale})` }
}

/** Refuses an adapter result that is not on our scale (a bug or a vendor surprise is an abstention). */
function checkResult(result: ClassifierResult): ClassifierResult {
  const ok =
    result !== null &&
    typeof result === 'object' &&
    typeof result.safe === 'boolean' &&
    typeof result.rationale === 'string' &&
    result.categories !== null &&
    typeof result.categories === 'object' &&
    Object.values(result.categories).every((c) => c !== null && typeof c === 'object' && isSeverity(c.severity) && typeof c.raw === 'boolean')
  if (!ok) throw new GuardrailFailure('malformed_answer', 'adapter produced a result off the severity scale')
  return result
}

/** The text of `input.<path>` or `session.<name>`; undefined when absent. Non-strings are sent as JSON. */
export function fieldText(field: string, request: EvalRequest, ctx: EvalContext): string | undefined {
  const [root, ...path] = field.split('.')
  let value: unknown
  if (root === 'input') {
    value = request.input
    for (const key of path) value = value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined
  } else if (root === 'session' && ctx.session && path.length === 1) {
    const s = ctx.session
    const facts: Record<string, unknown> = { id: s.id, signer: s.signer, user_id: s.userId, groups: s.groups }
    value = facts[path[0]!]
  }
  if (value === undefined || value === null) return undefined
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function displayUrl(raw: string): string {
  try {
    const url = new URL(raw)
    url.username = ''
    url.password = ''
    url.search = ''
    return url.toString().replace(/\/$/, '')
  } catch {
    return '(invalid URL)'
  }
}
