/** JSON Schemas of the guardrail endpoints (they also decide what is serialised: nothing else leaves). */

const severity = { type: 'string', enum: ['none', 'low', 'medium', 'high', 'critical'] } as const
export const categoriesSchema = {
  type: 'object',
  additionalProperties: { type: 'object', required: ['severity', 'raw'], properties: { severity, raw: { type: 'boolean' } } },
} as const

export const classifierResultSchema = {
  type: 'object',
  required: ['safe', 'categories', 'rationale'],
  properties: { safe: { type: 'boolean' }, categories: categoriesSchema, rationale: { type: 'string' } },
} as const

export const providersView = {
  type: 'object',
  required: ['enabled', 'providers'],
  properties: {
    enabled: { type: 'boolean', description: 'whether guardrail evaluators run after a local allow' },
    providers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'configured', 'credential_env', 'models'],
        properties: {
          id: { type: 'string' },
          title: { type: 'string' },
          configured: { type: 'boolean', description: 'credential (if needed) and base URL are set; the credential itself is never shown' },
          credential_env: { type: 'string', description: 'the environment variable the credential is read from at start' },
          base_url: { type: 'string', description: 'base URL without user info or query' },
          models: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const

export const catalogView = {
  type: 'object',
  required: ['models'],
  properties: {
    models: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'provider', 'model', 'kind', 'title', 'runnable', 'categories', 'flag_severity'],
        properties: {
          id: { type: 'string' },
          provider: { type: 'string' },
          model: { type: 'string' },
          kind: { type: 'string', enum: ['classifier_model', 'account_policy'] },
          title: { type: 'string' },
          runnable: { type: 'boolean', description: 'classifier_model entries run after local policy; account_policy entries are listed only' },
          categories: { type: 'array', items: { type: 'string' } },
          flag_severity: { type: 'object', additionalProperties: severity, description: 'what a raw true flag maps to per category (default high)' },
        },
      },
    },
  },
} as const

export const testBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256, description: 'catalog id; defaults to the provider’s first classifier_model' },
    text: { type: 'string', minLength: 1, maxLength: 10_000, description: 'text to classify; defaults to a harmless probe' },
  },
} as const

export const testView = {
  type: 'object',
  required: ['provider', 'model', 'reachable', 'latency_ms'],
  properties: {
    provider: { type: 'string' },
    model: { type: 'string' },
    reachable: { type: 'boolean' },
    latency_ms: { type: 'integer' },
    result: classifierResultSchema,
    abstained: { type: 'object', required: ['kind', 'detail'], properties: { kind: { type: 'string' }, detail: { type: 'string' } } },
  },
} as const

export const enabledBody = { type: 'object', additionalProperties: false, required: ['enabled'], properties: { enabled: { type: 'boolean' } } } as const
export const enabledView = {
  type: 'object',
  required: ['enabled', 'previous', 'ledger_seq'],
  properties: { enabled: { type: 'boolean' }, previous: { type: 'boolean' }, ledger_seq: { type: 'integer', description: 'the control entry recording the change' } },
} as const

const stageView = {
  type: 'object',
  required: ['verdict', 'ledger_verdict', 'rule_id', 'reason'],
  properties: { verdict: { type: 'string', enum: ['allow', 'deny'] }, ledger_verdict: { type: 'string' }, rule_id: { type: 'string' }, reason: { type: 'string' } },
} as const

export const traceView = {
  type: 'object',
  required: ['seq', 'at', 'source', 'tool', 'local', 'guardrail', 'final'],
  properties: {
    seq: { type: 'integer' },
    at: { type: 'integer' },
    source: { type: 'string' },
    tool: { type: 'string' },
    local: { ...stageView, description: 'the deterministic policy verdict' },
    guardrail: {
      type: 'object',
      required: ['verdict', 'ran', 'enabled', 'evaluators'],
      properties: {
        verdict: { type: 'string', enum: ['deny', 'monitor', 'allow', 'abstain', 'disabled', 'not_run'] },
        ran: { type: 'boolean' },
        enabled: { type: 'boolean' },
        why: { type: 'string' },
        evaluators: {
          type: 'array',
          items: {
            type: 'object',
            required: ['gate_id', 'provider', 'model', 'effect', 'reason', 'categories', 'matched', 'latency_ms', 'cached', 'abstained'],
            properties: {
              gate_id: { type: 'string' },
              provider: { type: 'string' },
              model: { type: 'string' },
              effect: { type: 'string', enum: ['deny', 'monitor', 'allow', 'abstain', 'skipped'] },
              reason: { type: 'string' },
              categories: categoriesSchema,
              matched: { type: 'array', items: { type: 'string' } },
              latency_ms: { type: 'number' },
              cached: { type: 'boolean' },
              abstained: { type: 'boolean' },
              abstain_kind: { type: 'string', enum: ['timeout', 'provider_error', 'malformed_answer', 'not_configured', 'unsupported_entry', 'missing_field'] },
              why: { type: 'string' },
            },
          },
        },
      },
    },
    final: {
      type: 'object',
      required: [...stageView.required, 'decided_by'],
      properties: { ...stageView.properties, decided_by: { type: 'string', enum: ['local', 'guardrail', 'core'], description: 'the stage that produced the final verdict' } },
    },
  },
} as const
