/**
 * Bad-input cases derived from the OpenAPI contract: for every operation, malformed JSON, wrong types,
 * unknown fields, oversized bodies, missing required fields, bad path parameters and query strings,
 * each with the status and the words the problem's detail must contain.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { PROJECT_ROOT } from '../../cli/paths.ts'

export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  pattern?: string
  enum?: unknown[]
  $ref?: string
  oneOf?: JsonSchema[]
}

export interface Operation {
  readonly method: string
  readonly path: string
  readonly params: Readonly<Record<string, JsonSchema>>
  readonly query: JsonSchema | undefined
  readonly body: JsonSchema | undefined
  readonly operator: boolean
  readonly responses: readonly string[]
}

export interface BadCase {
  readonly name: string
  readonly method: string
  readonly url: string
  /** A string is sent raw; `undefined` sends no body. */
  readonly body?: unknown
  readonly contentType?: string
  /** Send the operator token; `forged` sends a well-formed token the daemon never issued. */
  readonly auth: boolean | 'forged'
  readonly status: number
  readonly detail: RegExp
  /** False for a method the path does not have (no documented responses to check against). */
  readonly documented: boolean
}

/** Every operation of the committed contract. */
export function operations(): Operation[] {
  const doc = parse(readFileSync(join(PROJECT_ROOT, 'openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, any>> }
  const ops: Operation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters = (op.parameters ?? []) as { in: string; name: string; required?: boolean; schema: JsonSchema }[]
      const queryParams = parameters.filter((p) => p.in === 'query')
      ops.push({
        method: method.toUpperCase(),
        path,
        params: Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, p.schema])),
        query: { properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])), required: queryParams.filter((p) => p.required).map((p) => p.name) },
        body: op.requestBody?.content?.['application/json']?.schema,
        operator: Array.isArray(op.security) && op.security.length > 0,
        responses: Object.keys(op.responses ?? {}),
      })
    }
  }
  return ops
}

/** A value of the wrong JSON type for a property schema (undefined when any type is accepted). */
function wrongTypeFor(schema: JsonSchema): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'string':
      return 12345
    case 'integer':
    case 'number':
      return '1'
    case 'boolean':
      return 'true'
    case 'array':
      return { not: 'a list' }
    case 'object':
      return ['not', 'an', 'object']
    default:
      return undefined
  }
}

/** Expected 413 detail, and the limit a body must pass to get it. */
export interface Limits {
  readonly defaultBodyLimit: number
  readonly bodyLimits: Readonly<Record<string, number>>
}

/**
 * The cases of one operation. `fill` gives a valid value for each path parameter, `unknown` one that is
 * well-formed but names nothing, `valid` a body that passes the schema (so one changed field is the only fault).
 */
export function casesFor(
  op: Operation,
  ctx: {
    fill: Record<string, string>
    unknown: Record<string, { value: string; status: number }>
    valid: Record<string, unknown>
    validQuery: Record<string, string>
    readsIllFormedText: ReadonlySet<string>
  } & Limits,
): BadCase[] {
  const key = `${op.method} ${op.path}`
  const path = (over: Record<string, string> = {}) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(over[name] ?? ctx.fill[name] ?? 'x'))
  // Required query parameters get a valid value, so each case carries exactly one fault.
  const query = (over: Record<string, string | undefined> = {}) => {
    const q = new URLSearchParams()
    for (const name of op.query?.required ?? []) if (!(name in over)) q.set(name, ctx.validQuery[name] ?? 'x')
    for (const [name, value] of Object.entries(over)) if (value !== undefined) q.set(name, value)
    const text = q.toString()
    return text ? `?${text}` : ''
  }
  const url = (over: Record<string, string> = {}) => `${path(over)}${query()}`
  const base = { method: op.method, auth: op.operator, documented: true }
  const cases: BadCase[] = []
  const add = (name: string, c: Omit<BadCase, 'name' | 'method' | 'auth' | 'documented'> & Partial<BadCase>) => cases.push({ ...base, name: `${key}: ${name}`, ...c })
  const validBody = op.body ? ctx.valid[key] : undefined
  const withBody = op.body ? { body: validBody ?? {} } : {}

  add('an unknown query parameter', { url: `${path()}${query({ __svc_unknown: '1' })}`, ...withBody, status: 400, detail: /querystring: unknown field "__svc_unknown"/ })
  for (const [name, schema] of Object.entries(op.query?.properties ?? {})) {
    add(`query ${name} of the wrong shape`, {
      url: `${path()}${query({ [name]: '!bad value!' })}`,
      ...withBody,
      status: 400,
      detail: new RegExp(`querystring: field "${name}" must`),
    })
    if (schema.type !== 'string') throw new Error(`${key}: query ${name} must be a string schema (no coercion)`)
  }
  for (const name of op.query?.required ?? [])
    add(`query ${name} missing`, { url: `${path()}${query({ [name]: undefined })}`, ...withBody, status: 400, detail: new RegExp(`missing required field "${name}"`) })

  for (const name of Object.keys(op.params)) {
    add(`path ${name} malformed`, { url: url({ [name]: '!'.repeat(65) }), ...withBody, status: 400, detail: new RegExp(`params: field "${name}" must`) })
    const unknown = ctx.unknown[name]
    if (!unknown) throw new Error(`${key}: no unknown value for path parameter ${name}`)
    add(`path ${name} names nothing`, { url: url({ [name]: unknown.value }), ...withBody, status: unknown.status, detail: new RegExp(`"?${unknown.value}"?`) })
  }

  if (op.operator) {
    add('no operator token (even with a broken body)', { url: url(), body: op.body ? '{"broken": ' : undefined, auth: false, status: 401, detail: /operator token/ })
    add('a forged operator token', { url: url(), ...withBody, auth: 'forged', status: 401, detail: /unknown or expired/ })
  }
  add('a method the path does not have', { method: 'DELETE', url: url(), status: 404, detail: /no route DELETE/, documented: false })

  if (!op.body) return cases
  const limit = ctx.bodyLimits[op.path] ?? ctx.defaultBodyLimit
  add('malformed JSON', { url: url(), body: '{"a": ', status: 400, detail: /not valid JSON/ })
  add('an empty JSON body', { url: url(), body: '', status: 400, detail: /body is empty/ })
  add('a JSON array', { url: url(), body: '[]', status: 400, detail: /must be object/ })
  add('a text/plain body', { url: url(), body: 'hello', contentType: 'text/plain', status: 415, detail: /application\/json/ })
  const big = { padding: 'a'.repeat(2 * 1024 * 1024) }
  if (limit < 2 * 1024 * 1024) add('a 2 MB body', { url: url(), body: big, status: 413, detail: new RegExp(`larger than the ${limit} byte limit`) })
  else add('a 2 MB body of the wrong shape', { url: url(), body: big, status: 400, detail: /payload|field/ })
  if (limit >= 2 * 1024 * 1024)
    add('a body over the route limit', { url: url(), body: { padding: 'a'.repeat(limit + 1) }, status: 413, detail: new RegExp(`larger than the ${limit} byte limit`) })

  const schema = op.body
  if (schema.additionalProperties === false) {
    if (validBody === undefined) throw new Error(`${key}: give a valid example body so single faults can be injected`)
    add('an unknown field', { url: url(), body: { ...(validBody as object), __svc_unknown: true }, status: 400, detail: /unknown field "__svc_unknown"/ })
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const wrong = wrongTypeFor(prop)
      if (wrong === undefined) continue
      add(`field ${name} of the wrong type`, { url: url(), body: { ...(validBody as object), [name]: wrong }, status: 400, detail: new RegExp(`field "${name}" must be`) })
    }
    for (const [name, value] of Object.entries(validBody as Record<string, unknown>)) {
      if (typeof value !== 'string' || ctx.readsIllFormedText.has(key)) continue
      add(`field ${name} with a lone UTF-16 surrogate`, {
        url: url(),
        body: { ...(validBody as object), [name]: `${value}\ud800` },
        status: 400,
        detail: new RegExp(`body.${name}: not valid Unicode text`),
      })
    }
    const [first] = Object.keys(validBody as object)
    if (first)
      add('a key twice in one object', {
        url: url(),
        body: `{${JSON.stringify(first)}:null,${JSON.stringify(validBody).slice(1)}`,
        status: 400,
        detail: new RegExp(`key "${first}" appears twice`),
      })
    for (const name of schema.required ?? []) {
      const { [name]: _, ...rest } = validBody as Record<string, unknown>
      add(`field ${name} missing`, { url: url(), body: rest, status: 400, detail: new RegExp(`missing required field "${name}"`) })
    }
  }
  return cases
}

/** Places in request schemas that accept any field on purpose: a harness's own payload, a tool's input. */
export const OPEN_OBJECTS = new Set([
  'POST /v1/hooks/{harness}/{event}',
  'POST /v1/gates/check.input',
  'POST /v1/gates/check.meta',
  'POST /v1/mcp/pin/check.tools[].input_schema',
  // What svc mcp-proxy relays: an MCP request's params and a server's tool objects, as the protocol has them.
  'POST /v1/mcp/proxy/{event}.params',
  'POST /v1/mcp/proxy/{event}.tools[]',
  // A case bundle is a document the daemon wrote and reads back by seq and hashes; an example's input is a tool's input.
  'POST /v1/false-positives/validate.bundle',
  'POST /v1/false-positives/validate.examples[].input',
  'POST /v1/false-positives/apply.bundle',
  'POST /v1/false-positives/apply.examples[].input',
  'POST /v1/false-positives/cases/{seq}/replay.bundle',
  'POST /v1/false-positives/cases/{seq}/replay.examples[].input',
])

/** Every place within a request body schema that accepts unknown fields (an open object, or no schema at all). */
export function openObjects(at: string, schema: JsonSchema | undefined, out: string[] = []): string[] {
  if (!schema) return out
  // One of several shapes (a grant for one call or for a rule): closed when every shape is.
  if (schema.oneOf) {
    for (const [i, branch] of schema.oneOf.entries()) openObjects(`${at}|${i}`, branch, out)
    return out
  }
  const typed = schema.type !== undefined || schema.enum !== undefined || schema.$ref !== undefined
  const isObject = schema.type === 'object' || schema.properties !== undefined
  if ((isObject && schema.additionalProperties !== false) || !typed) out.push(at)
  for (const [name, prop] of Object.entries(schema.properties ?? {})) openObjects(`${at}.${name}`, prop, out)
  if (schema.items) openObjects(`${at}[]`, schema.items, out)
  return out
}
