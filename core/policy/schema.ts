/**
 * JSON Schemas of policy files. Leaf predicates inside `when` are validated by their gate-kind plugin,
 * so the `when` block here is only "an object".
 */
import type { JsonSchema } from '../plugin.ts'

/** What a gate id may look like (snake_case or dotted, as `fs.rm-root-or-home`): a letter or digit, then up to 127 of `A-Za-z0-9_.:/-`. */
export const GATE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$'

const disabledBySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event_seq', 'at', 'replacement_id', 'note', 'seal'],
  properties: {
    event_seq: { type: 'integer', minimum: 0 },
    at: { type: 'string', minLength: 1 },
    replacement_id: { type: 'string', pattern: GATE_ID_PATTERN },
    note: { type: 'string' },
    seal: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
} as const

/** JSON Schema of one gate (its `when` leaves are checked by their gate kinds at compile). */
export const gateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: GATE_ID_PATTERN },
    description: { type: 'string' },
    when: { type: 'object' },
    match: { type: 'object' },
    on_hit: { enum: ['deny', 'allow', 'monitor'] },
    require_strong: { type: 'boolean' },
    disabled: { type: 'boolean' },
    disabled_by: disabledBySchema,
    nudge: { type: 'string', maxLength: 2000 },
    evaluate: { type: 'array', items: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } } },
    tags: { type: 'array', items: { type: 'string' } },
  },
} as const satisfies JsonSchema

/** Fields every policy file starts with. */
const headerProperties = {
  version: { const: 1 },
  mode: { enum: ['monitor', 'firewall'] },
  description: { type: 'string' },
} as const

/** JSON Schema of a policy file (daemon, registry, user and repo layers). */
export const policyFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['version'],
  properties: { ...headerProperties, gates: { type: 'array', items: gateSchema } },
} as const satisfies JsonSchema

const gateListSchema = { type: 'object', additionalProperties: false, required: ['gates'], properties: { gates: { type: 'array', items: gateSchema } } }

/** `$SVC_HOME/group-policy.yaml`: gates per group name and per user id. */
export const groupPolicyFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['version'],
  properties: {
    ...headerProperties,
    groups: { type: 'object', additionalProperties: gateListSchema },
    users: { type: 'object', additionalProperties: gateListSchema },
  },
} as const satisfies JsonSchema
