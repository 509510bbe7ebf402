/** POST /v1/gates/check: the synchronous verdict for one tool call (never `ask`). */
import type { FastifyInstance } from 'fastify'
import { ABSOLUTE_PATH } from './schemas.ts'

interface CheckBody {
  session_id: string
  source: string
  tool: string
  input: Record<string, unknown>
  cwd?: string
  meta?: Record<string, unknown>
}

const checkBody = {
  type: 'object',
  additionalProperties: false,
  required: ['session_id', 'source', 'tool', 'input'],
  properties: {
    session_id: { type: 'string', minLength: 1, maxLength: 256 },
    source: { type: 'string', minLength: 1, maxLength: 64 },
    tool: { type: 'string', minLength: 1, maxLength: 256 },
    input: { type: 'object' },
    cwd: ABSOLUTE_PATH,
    meta: { type: 'object' },
  },
} as const

/** Response schema of a gate check (also keeps the decision trace out of the answer). */
export const checkResponse = {
  type: 'object',
  required: ['verdict', 'rule_id', 'reason', 'ledger_seq'],
  properties: {
    verdict: { type: 'string', enum: ['allow', 'deny'] },
    rule_id: { type: 'string' },
    reason: { type: 'string' },
    nudge: { type: 'string' },
    ledger_seq: { type: 'integer' },
  },
} as const

export default async function checkRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: CheckBody }>('/v1/gates/check', {
    // A field that is not Unicode text is a deny the engine records (core/engine.ts), like any unreadable call.
    config: { readsIllFormedText: true },
    schema: { summary: 'Verdict for one tool call', body: checkBody, response: { 200: checkResponse, 400: { $ref: 'Problem#' }, 413: { $ref: 'Problem#' } } },
    handler: async (request) => {
      const b = request.body
      const toolUseId = typeof b.meta?.tool_use_id === 'string' ? b.meta.tool_use_id : undefined
      return app.engine.check({ sessionId: b.session_id, source: b.source, tool: b.tool, input: b.input, cwd: b.cwd, meta: b.meta, toolUseId })
    },
  })
}
