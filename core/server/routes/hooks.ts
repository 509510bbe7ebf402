/**
 * POST /v1/hooks/{harness}/{event}: the harness-facing hook, as parse → decide → render. The payload is the
 * harness's own; its plugin parses it, the hook protocol (core/hook-protocol/) decides or records it, and
 * the answer goes back in the harness's native shape with `x-svc-hook: 1` (which the shim checks).
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { ApiProblem } from '../../errors.ts'
import { harnessRegistry, HookPayloadError, plannedHarnesses } from '../../harness.ts'
import type { HarnessDefinition } from '../../harness.ts'
import { HookProtocol } from '../../hook-protocol/protocol.ts'
import { toProblem } from '../problem.ts'

/** Hook payloads can carry file content (file-read events): a larger limit than other routes. */
export const HOOK_BODY_LIMIT = 8 * 1024 * 1024

function sendNative(reply: FastifyReply, body: string): FastifyReply {
  return reply.code(200).header('x-svc-hook', '1').type('application/json').send(body)
}

/** The registered harness `id`; a 501 problem for a planned one, a 404 for an unknown one. */
function lookupHarness(app: FastifyInstance, id: string): HarnessDefinition {
  const harnesses = harnessRegistry(app.engine.registry)
  const harness = harnesses.get(id)
  if (harness) return harness
  const supported = [...harnesses.keys()].join(', ') || '(none registered)'
  if (plannedHarnesses(app.engine.registry).has(id)) throw new ApiProblem(501, 'not_implemented', `harness "${id}" is not yet implemented; supported: ${supported}`)
  throw new ApiProblem(404, 'not_found', `unknown harness "${id}"; supported: ${supported}`)
}

export default async function hookRoutes(app: FastifyInstance): Promise<void> {
  const protocol = new HookProtocol(app.engine)
  app.post<{ Params: { harness: string; event: string }; Body: Record<string, unknown> }>('/v1/hooks/:harness/:event', {
    bodyLimit: HOOK_BODY_LIMIT,
    schema: {
      summary: 'Harness-facing hook (native payload in, native answer out)',
      description: 'The body is the harness’s own hook payload; unknown fields are ignored. The answer is the harness’s native JSON (possibly empty for an allow) with header `x-svc-hook: 1`.',
      params: {
        type: 'object',
        required: ['harness', 'event'],
        properties: { harness: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' }, event: { type: 'string', pattern: '^[A-Za-z0-9_]{1,64}$' } },
      },
      body: { type: 'object', additionalProperties: true },
      response: { 400: { $ref: 'Problem#' }, 404: { $ref: 'Problem#' }, 413: { $ref: 'Problem#' }, 501: { $ref: 'Problem#' } },
    },
    handler: async (request, reply) => {
      const { harness: id, event } = request.params
      const harness = lookupHarness(app, id)
      if (!(event in harness.events)) {
        throw new ApiProblem(404, 'not_found', `harness "${id}" has no hook event "${event}"; supported: ${Object.keys(harness.events).join(', ')}`)
      }
      let parsed
      try {
        parsed = harness.parse(event, request.body)
      } catch (err) {
        if (err instanceof HookPayloadError) throw new ApiProblem(400, 'invalid_request', `${id} ${event} payload: ${err.message}`)
        throw err
      }
      if (parsed.kind === 'ignore') return sendNative(reply, harness.render(event, undefined).body)
      try {
        return sendNative(reply, harness.render(event, await protocol.handle(parsed)).body)
      } catch (err) {
        // A pre-tool call that cannot be decided (engine failure, ledger unavailable) is never an error status:
        // transports that fail open on one (native HTTP hooks) would run the tool. It is a native deny.
        const problem = toProblem(err as FastifyError)
        if (problem.status < 500 || parsed.kind === 'outcome') throw err
        request.log.error({ err }, 'hook decision failed; answering deny')
        const why = problem.status === 500 ? 'internal error; see the daemon log' : problem.message
        return sendNative(reply, harness.render(event, { verdict: 'deny', ruleId: '', reason: `svc could not decide this call (${why}), so it is refused` }).body)
      }
    },
  })
}
