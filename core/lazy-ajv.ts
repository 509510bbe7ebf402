/**
 * JSON Schema validators compiled on first use. Loading ajv and compiling a schema costs a short-lived command
 * (`svc explain`, a hook-time CLI) more than the rest of its start, and most runs never validate anything: the
 * parse cache (policy/parse-cache.ts) already vouches for unchanged policy files. svc's own schemas are checked
 * against the JSON Schema meta-schema by a test, so compiling the meta-schema at every start buys nothing.
 */
import { createRequire } from 'node:module'
import type { Ajv, Options, ValidateFunction } from 'ajv'

const require = createRequire(import.meta.url)

/** A new ajv instance (loaded on first call) with svc's defaults: not strict, first error only, no meta-schema check. */
export function newAjv(options: Options = {}): Ajv {
  const { Ajv } = require('ajv') as typeof import('ajv')
  return new Ajv({ strict: false, allErrors: false, validateSchema: false, ...options })
}

/** A validator for `schema`, compiled the first time it is asked for. */
export function lazyValidator(schema: object, options?: Options): () => ValidateFunction {
  let validate: ValidateFunction | undefined
  return () => (validate ??= newAjv(options).compile(schema))
}
