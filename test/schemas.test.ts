/**
 * Every JSON Schema svc compiles is a valid schema. At run time ajv skips the meta-schema check (it costs every
 * start ~100 ms, see core/lazy-ajv.ts); this test is where a malformed schema of a policy file or of any
 * registered gate or evaluator kind is caught instead.
 */
import { Ajv } from 'ajv'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { allPlugins } from '../cli/plugins.ts'
import { applyPlugins, createHooks, createRegistries, gateSchema, policyFileSchema } from '../core/index.ts'
import { groupPolicyFileSchema } from '../core/policy/schema.ts'

const registry = createRegistries()
applyPlugins(allPlugins, { hooks: createHooks(), registry, log: pino({ level: 'silent' }), home: '/nonexistent' })

const schemas: [string, object][] = [
  ['policy file', policyFileSchema],
  ['group policy file', groupPolicyFileSchema],
  ['gate', gateSchema],
  ...[...registry.gateKinds].map(([name, kind]): [string, object] => [`gate kind ${name}`, kind.schema]),
  ...[...registry.evaluatorKinds].map(([name, kind]): [string, object] => [`evaluator kind ${name}`, kind.schema]),
]

describe('schemas', () => {
  it('covers every registered kind', () => {
    expect(registry.gateKinds.size).toBeGreaterThan(5)
    expect(registry.evaluatorKinds.size).toBeGreaterThan(0)
  })

  it.each(schemas)('%s is a valid JSON Schema', (_name, schema) => {
    const ajv = new Ajv({ strict: false })
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true)
    expect(() => ajv.compile(schema)).not.toThrow()
  })
})
