/** JSON Schemas of the grant endpoints (the OpenAPI document is built from them). */
const b64 = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9+/]+={0,2}$' } as const
const common = {
  v: { const: 1 },
  issued_at_ms: { type: 'integer', minimum: 0, maximum: 9_007_199_254_740_991 },
  nonce: { type: 'string', minLength: 8, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
} as const
const forMs = { type: 'integer', minimum: 1_000, maximum: 9_007_199_254_740_991, description: 'the window, in ms' } as const

export const grantBody = {
  type: 'object',
  additionalProperties: false,
  required: ['request'],
  properties: {
    request: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['v', 'kind', 'code', 'issued_at_ms', 'nonce'],
          properties: { ...common, kind: { const: 'call' }, code: { type: 'string', minLength: 1, maxLength: 16 }, for_ms: forMs },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['v', 'kind', 'gate', 'project', 'for_ms', 'issued_at_ms', 'nonce'],
          properties: {
            ...common,
            kind: { const: 'rule' },
            gate: { type: 'string', minLength: 1, maxLength: 200 },
            project: { type: 'string', minLength: 1, maxLength: 4096 },
            for_ms: forMs,
          },
        },
      ],
    },
    host_public_key: b64,
    signature: b64,
  },
} as const

const grantProps = {
  id: { type: 'string' },
  kind: { type: 'string', enum: ['call', 'rule'] },
  gates: { type: 'array', items: { type: 'string' } },
  once: { type: 'boolean' },
  uses: { type: 'integer' },
  expires_at: { type: 'string', format: 'date-time' },
  who: { type: 'string' },
  code: { type: 'string' },
  cwd: { type: 'string' },
  project: { type: 'string' },
  granted_seq: { type: 'integer' },
} as const

const grant = { type: 'object', required: ['id', 'kind', 'gates', 'once', 'uses', 'expires_at', 'who'], properties: grantProps } as const

export const grantView = { type: 'object', required: [...grant.required, 'ledger_seq'], properties: { ...grantProps, ledger_seq: { type: 'integer' } } } as const

export const grantList = { type: 'object', required: ['grants'], properties: { grants: { type: 'array', items: grant } } } as const
