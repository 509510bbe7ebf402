/**
 * RFC 9457 problem+json for every error the API returns: `{type, title, status, detail, code}`.
 * Never a stack trace in a body.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { ApiProblem, EngineError, RefusalError, type ProblemCode } from '../../core/errors.ts'

export const PROBLEM_TYPE_BASE = 'https://svc.dev/problems/'

/** Longest path parameter the router accepts (Fastify's `maxParamLength`); longer is a 414. */
export const MAX_PARAM_LENGTH = 100

/** Schema of a problem body (used in route response schemas and the OpenAPI contract). */
export const problemSchema = {
  $id: 'Problem',
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
  },
  additionalProperties: true,
} as const

/** Answers with `problem` as an RFC 9457 problem+json body. */
export function sendProblem(reply: FastifyReply, problem: ApiProblem): FastifyReply {
  // A 429 (and a 503 that knows when) says when to come back, in the header clients already honour.
  const retryAfter = problem.extra?.retry_after_s
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter))
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send({ type: `${PROBLEM_TYPE_BASE}${problem.code}`, title: problem.title, status: problem.status, detail: problem.message, code: problem.code, ...problem.extra })
}

/**
 * How an engine failure reaches an API caller: the status its kind carries (core/errors.ts `ERR`) and a
 * stable problem code by its `PE_` code, so a broken or closed ledger is a 503 `unavailable` (retry later)
 * rather than an anonymous 500. The engine code itself travels as `engine_code`.
 */
const ENGINE_PROBLEMS: Readonly<Record<string, { code: ProblemCode; what: string }>> = {
  PE_LEDGER_BROKEN: { code: 'unavailable', what: 'ledger unavailable' },
  PE_SESSION_INVALID: { code: 'no_session', what: 'no usable session' },
  PE_GUARDRAIL_UNAVAILABLE: { code: 'unavailable', what: 'guardrail unavailable' },
  PE_POLICY_INVALID: { code: 'invalid_request', what: 'invalid policy' },
  PE_GATE_UNKNOWN_KIND: { code: 'invalid_request', what: 'invalid policy' },
  PE_GATE_CONFIG_INVALID: { code: 'invalid_request', what: 'invalid policy' },
}

/** An engine error as a problem; an internal (500) one names only its code, never its message or stack. */
export function engineProblem(err: EngineError): ApiProblem {
  const known = ENGINE_PROBLEMS[err.code]
  if (known && err.statusCode !== 500) return new ApiProblem(err.statusCode, known.code, `${known.what}: ${err.message}`, { engine_code: err.code })
  return new ApiProblem(500, 'internal', `internal error ${err.code}; see the daemon log`, { engine_code: err.code })
}

/** node:sqlite failures (busy, closed, I/O) outside the ledger's own EngineErrors: storage is unavailable. */
function storageProblem(err: Error & { code?: unknown; errstr?: unknown }): ApiProblem | undefined {
  if (err.code === 'ERR_SQLITE_ERROR') return new ApiProblem(503, 'unavailable', `daemon storage unavailable: ${typeof err.errstr === 'string' ? err.errstr : err.message}`)
  if (err.code === 'ERR_INVALID_STATE' && /database is not open|statement has been finalized/i.test(err.message))
    return new ApiProblem(503, 'unavailable', 'daemon storage unavailable: the database is closed (is the daemon shutting down?)')
  return undefined
}

/** Maps Fastify's own errors (validation, body limit, bad JSON), engine and storage errors, and ours to problems. */
export function toProblem(err: FastifyError, bodyLimit?: number): ApiProblem {
  if (err instanceof ApiProblem) return err
  if (err instanceof RefusalError) return new ApiProblem(err.status, err.code, err.message)
  if (err instanceof EngineError) return engineProblem(err)
  const storage = storageProblem(err)
  if (storage) return storage
  if (err.validation) {
    const first = err.validation[0]
    const field = first?.instancePath ? first.instancePath.slice(1).replaceAll('/', '.') : ''
    const params = first?.params as Record<string, unknown> | undefined
    let detail: string
    if (first?.keyword === 'additionalProperties') detail = `unknown field "${field ? `${field}.` : ''}${String(params?.additionalProperty)}"`
    else if (first?.keyword === 'required') detail = `missing required field "${field ? `${field}.` : ''}${String(params?.missingProperty)}"`
    else detail = `${field ? `field "${field}"` : (err.validationContext ?? 'request')} ${first?.message ?? 'is invalid'}`
    return new ApiProblem(400, 'invalid_request', `${err.validationContext ?? 'body'}: ${detail}`)
  }
  const code = err.code as string | undefined
  if (code === 'FST_ERR_BAD_URL') return new ApiProblem(400, 'invalid_request', 'the request path is not a valid URL (bad percent-encoding)')
  if (code === 'FST_ERR_MAX_PARAM_LENGTH') return new ApiProblem(414, 'invalid_request', `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`)
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ApiProblem(413, 'payload_too_large', bodyLimit ? `request body is larger than the ${bodyLimit} byte limit` : 'request body is larger than the limit')
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new ApiProblem(415, 'invalid_request', 'request body must be application/json')
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new ApiProblem(400, 'invalid_request', 'request body is empty; a JSON object is required')
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError' || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new ApiProblem(400, 'invalid_request', `request body is not valid JSON: ${err.message}`)
  }
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
  const fallback: ProblemCode = status === 404 ? 'not_found' : status === 401 ? 'unauthorized' : status < 500 ? 'invalid_request' : 'internal'
  return new ApiProblem(status, fallback, status < 500 ? err.message : 'internal error; see the daemon log')
}

/** Installs the error and not-found handlers on an app. */
export function installProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const problem = toProblem(err, request.routeOptions.bodyLimit)
    if (problem.status >= 500) request.log.error({ err }, 'request failed')
    return sendProblem(reply, problem)
  })
  app.setNotFoundHandler((request, reply) => sendProblem(reply, new ApiProblem(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`)))
}
