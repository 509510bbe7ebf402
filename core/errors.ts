/**
 * The one registry of error codes. API errors are RFC 9457 problem+json bodies carrying `code`;
 * engine errors carry a `PE_` code and, where known, the plugin, hook and YAML location.
 */
import type { SourceLoc } from './types.ts'

/** Every engine error kind: its stable `PE_` code and the HTTP status it maps to (one registry, as fastify's errors.js). */
export const ERR = {
  POLICY_INVALID: { code: 'PE_POLICY_INVALID', status: 400 },
  GATE_UNKNOWN_KIND: { code: 'PE_GATE_UNKNOWN_KIND', status: 400 },
  GATE_CONFIG_INVALID: { code: 'PE_GATE_CONFIG_INVALID', status: 400 },
  PLUGIN_DUPLICATE: { code: 'PE_PLUGIN_DUPLICATE', status: 500 },
  PLUGIN_MISSING_DEP: { code: 'PE_PLUGIN_MISSING_DEP', status: 500 },
  PLUGIN_FAILED: { code: 'PE_PLUGIN_FAILED', status: 500 },
  DECISION_LOOSENED: { code: 'PE_DECISION_LOOSENED', status: 500 },
  GUARDRAIL_UNAVAILABLE: { code: 'PE_GUARDRAIL_UNAVAILABLE', status: 503 },
  LEDGER_BROKEN: { code: 'PE_LEDGER_BROKEN', status: 503 },
  SESSION_INVALID: { code: 'PE_SESSION_INVALID', status: 503 },
} as const satisfies Record<string, { code: `PE_${string}`; status: number }>

/** One entry of `ERR`, the first argument of `new EngineError(kind, message)`. */
export type ErrorKind = (typeof ERR)[keyof typeof ERR]

/** Stable machine codes of API problems (DESIGN.md §4). */
export type ProblemCode =
  | 'invalid_request'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'conflict'
  | 'gone'
  | 'stale_policy'
  | 'payload_too_large'
  | 'unprocessable'
  | 'session_expired'
  | 'no_session'
  | 'not_implemented'
  | 'unavailable'
  | 'too_many_requests'
  | 'browser_refused'
  | 'internal'

/** Thrown by the core and plugins when they cannot do their job (a verdict is never an error). */
export class EngineError extends Error {
  readonly code: ErrorKind['code']
  readonly statusCode: number
  readonly plugin?: string
  readonly hook?: string
  readonly loc?: SourceLoc

  constructor(kind: ErrorKind, message: string, extra: { cause?: unknown; plugin?: string; hook?: string; loc?: SourceLoc } = {}) {
    super(message, { cause: extra.cause })
    this.name = 'EngineError'
    this.code = kind.code
    this.statusCode = kind.status
    this.plugin = extra.plugin
    this.hook = extra.hook
    this.loc = extra.loc
  }
}

/**
 * A domain refusal (no HTTP in sight): the caller asked for something that cannot be done, with the
 * status and stable code it maps to. The server turns every one into a problem the same way, so
 * modules never need a route-side translation of their own errors.
 */
export class RefusalError extends Error {
  readonly status: number
  readonly code: ProblemCode

  constructor(status: number, code: ProblemCode, message: string) {
    super(message)
    this.name = new.target.name
    this.status = status
    this.code = code
  }
}

/** An error that becomes a problem+json response with the given status and code. */
export class ApiProblem extends Error {
  readonly status: number
  readonly code: ProblemCode
  readonly title: string
  readonly extra?: Readonly<Record<string, unknown>>

  constructor(status: number, code: ProblemCode, detail: string, extra?: Record<string, unknown>) {
    super(detail)
    this.name = 'ApiProblem'
    this.status = status
    this.code = code
    this.title = PROBLEM_TITLES[status] ?? 'Error'
    this.extra = extra
  }
}

const PROBLEM_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
}

/** Formats a load error the way the CLI prints it: `CODE file:line:col message`. */
export function formatEngineError(err: EngineError): string {
  const where = err.loc ? ` ${err.loc.file}${err.loc.line ? `:${err.loc.line}:${err.loc.col ?? 1}` : ''}` : ''
  return `${err.code}${where} ${err.message}`
}
