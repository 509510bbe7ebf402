/**
 * The guardrail endpoints: GET /v1/guardrails/providers, POST /v1/guardrails/providers/{id}/test
 * (operator; a real call), GET /v1/guardrails/catalog, PUT /v1/guardrails/enabled (operator; a ledger
 * entry), GET /v1/guardrails/traces/{seq}, and GET /v1/llm/models (501: the model registry is not built).
 * No answer ever carries a credential: providers report only whether theirs is set.
 */
import type { FastifyInstance } from 'fastify'
import { ApiProblem, DEFAULT_MAX_LATENCY_MS, guardrailCatalog, guardrailProviders } from '../../core/index.ts'
import { catalogView, enabledBody, enabledView, providersView, testBody, testView, traceView } from './schemas.ts'
import { localOnlyTrace } from './trace.ts'
import { guardrailTraces } from './trace-store.ts'

const PROBE_TEXT = 'svc guardrail connectivity probe: list the files in the current directory'
const problem = { $ref: 'Problem#' } as const
// At most 15 digits: every value is then an exact JS number.
const seqParam = { type: 'object', required: ['seq'], properties: { seq: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$' } } } as const

export default async function guardrailRoutes(app: FastifyInstance): Promise<void> {
  const { engine } = app
  const providers = guardrailProviders(engine.registry)
  const catalog = guardrailCatalog(engine.registry)

  app.get('/v1/guardrails/providers', {
    schema: { summary: 'Guardrail provider registry (credentials are never shown, only whether they are set)', response: { 200: providersView } },
    handler: async () => ({
      enabled: engine.guardrailsEnabled(),
      providers: [...providers.values()].map((p) => ({
        id: p.id,
        title: p.title,
        configured: p.configured,
        credential_env: p.credentialEnv,
        ...(p.baseUrl ? { base_url: p.baseUrl } : {}),
        models: p.models.map((m) => m.id),
      })),
    }),
  })

  app.post<{ Params: { id: string }; Body: { model?: string; text?: string } }>('/v1/guardrails/providers/:id/test', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Test a provider with a real call: reachability, latency and the mapped result (operator)',
      security: [{ operator: [] }],
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } },
      body: testBody,
      response: { 200: testView, 404: problem, 422: problem },
    },
    handler: async (request) => {
      const provider = providers.get(request.params.id)
      if (!provider) throw new ApiProblem(404, 'not_found', `no guardrail provider "${request.params.id}" (known: ${[...providers.keys()].join(', ')})`)
      const runnable = provider.models.filter((m) => m.kind === 'classifier_model')
      const model = request.body?.model === undefined ? runnable[0] : provider.models.find((m) => m.id === request.body!.model)
      if (!model)
        throw new ApiProblem(404, 'not_found', `provider ${provider.id} has no model "${request.body?.model}" (its models: ${provider.models.map((m) => m.id).join(', ')})`)
      if (model.kind !== 'classifier_model') throw new ApiProblem(422, 'unprocessable', `${model.id} is an account_policy entry: listed in the catalog only, it cannot run`)
      return provider.test(model, request.body?.text ?? PROBE_TEXT, DEFAULT_MAX_LATENCY_MS)
    },
  })

  app.get('/v1/guardrails/catalog', {
    schema: { summary: 'Normalized provider catalog: classifier_model (runnable) and account_policy (listed only) entries', response: { 200: catalogView } },
    handler: async () => ({
      models: [...catalog.values()].map((m) => ({
        id: m.id,
        provider: m.provider,
        model: m.model,
        kind: m.kind,
        title: m.title,
        runnable: m.kind === 'classifier_model',
        categories: [...m.categories],
        flag_severity: { ...m.flagSeverity },
      })),
    }),
  })

  app.put<{ Body: { enabled: boolean } }>('/v1/guardrails/enabled', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Switch guardrail evaluators on or off (operator; recorded in the ledger)',
      security: [{ operator: [] }],
      body: enabledBody,
      response: { 200: enabledView },
    },
    handler: async (request) => {
      const previous = engine.guardrailsEnabled()
      const enabled = request.body.enabled
      engine.setGuardrailsEnabled(enabled)
      const entry = await engine.recordEvent(
        'config_changed',
        { who: app.auth.who(request), setting: 'guardrails', from: previous ? 'enabled' : 'disabled', to: enabled ? 'enabled' : 'disabled' },
        `guardrails ${enabled ? 'enabled' : 'disabled'} by an operator (were ${previous ? 'enabled' : 'disabled'})`,
      )
      request.log.warn({ enabled, previous, seq: entry.seq }, 'guardrails switched')
      return { enabled, previous, ledger_seq: entry.seq }
    },
  })

  app.get<{ Params: { seq: string } }>('/v1/guardrails/traces/:seq', {
    schema: { summary: 'Multi-stage trace (local policy, guardrail, final) for a ledger seq', params: seqParam, response: { 200: traceView, 404: problem } },
    handler: async (request) => {
      const seq = Number(request.params.seq)
      const stored = guardrailTraces(engine.registry)?.get(seq)
      if (stored) return stored
      const entry = engine.ledger.get(seq)
      if (!entry) throw new ApiProblem(404, 'not_found', `no ledger leaf at seq ${seq}`)
      if (entry.kind !== 'decision') throw new ApiProblem(404, 'not_found', `the leaf at seq ${seq} is a ${entry.kind} entry, not a decision`)
      return localOnlyTrace(entry, engine.guardrailsEnabled())
    },
  })

  app.get('/v1/llm/models', {
    schema: { summary: 'Model registry (not yet implemented: answers 501 with a hint)', response: { 501: problem } },
    handler: async () => {
      throw new ApiProblem(
        501,
        'not_implemented',
        'the model registry endpoint /v1/llm/models is not yet implemented; the guardrail models policies can name are listed by GET /v1/guardrails/catalog',
      )
    },
  })
}
