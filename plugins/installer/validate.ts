/**
 * Validates a config file we are about to write against the harness's published JSON Schema (ajv;
 * draft-07 and 2020-12). Compiled schemas are cached per path.
 */
import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'

const cache = new Map<string, ValidateFunction>()

function compile(schemaPath: string): ValidateFunction {
  let validate = cache.get(schemaPath)
  if (validate) return validate
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>
  // Published schemas carry editor keywords (markdownDescription, ...): strict mode would reject them.
  const options = { strict: false, allErrors: true, validateFormats: false }
  const ajv = String(schema.$schema ?? '').includes('2020-12') ? new Ajv2020(options) : new Ajv(options)
  validate = ajv.compile(schema)
  cache.set(schemaPath, validate)
  return validate
}

/** Problems of `value` against the schema, as readable lines; empty when it validates. */
export function schemaProblems(schemaPath: string, value: unknown): string[] {
  const validate = compile(schemaPath)
  if (validate(value)) return []
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
}
