/**
 * POST /v1/hooks/{harness}/{event}: the harness-facing hook. The payload is the harness's own; its
 * plugin parses it into a ToolCall, the engine decides it with the daemon's current session, and the
 * answer goes back in the harness's native shape with `x-svc-hook: 1` (which the shim checks).
 * Post-tool events append outcome rows linked to their pre-tool leaf by tool use id.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ApiProblem } from '../../errors.ts'
import { harnessRegistry, HookPayloadError } from '../../harness.ts'
import type { HarnessDefinition, HookAnswer } from '../../harness.ts'
import { payloadHash } from '../../engine.ts'
import { PLANNED_HARNESSES } from '../../install/select.ts'
import { HookMemory } from '../hook-memory.ts'


/** Hook payloads can carry file content (Cursor beforeReadFile): a larger limit than other routes. */
export const HOOK_BODY_LIMIT = 8 * 1024 * 1024

function sendNative(reply: FastifyReply, body: string): FastifyReply {
  return reply.code(200).header('x-svc-hook', '1').type('application/json').send(body)
}

export function lookupHarness(app: FastifyInstance, id: string): HarnessDefinition {
  const harnesses = harnessRegistry(app.engine.registry)
  const harness = harnesses.get(id)
  if (harness) return harness
  const supported = [...harnesses.keys()].join(', ') || '(none registered)'
  if (PLANNED_HARNESSES.includes(id)) throw new ApiProblem(501, 'not_implemented', `harness "${id}" is not yet implemented; supported: ${supported}`)
  throw new ApiProblem(404, 'not_found', `unknown harness "${id}"; supported: ${supported}`)
}

export default async function hookRoutes(app: FastifyInstance): Promise<void> {
  const memory = new HookMemory()
  app.post<{ Params: { harness: string; event: string }; Body: Record<string, unknown> }>('/v1/hooks/:harness/:event', {
    bodyLimit: HOOK_BODY_LIMIT,
    schema: {
      summary: 'Harness-facing hook (native payload in, native answer out)',
      description: 'The body is the harness’s own hook payload; unknown fields are ignored. The answer is the harness’s native JSON (possibly empty for Codex allow) with header `x-svc-hook: 1`.',
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
      const now = Date.now()
      const session = app.engine.sessions.current()
      const key = parsed.call.toolUseId ? HookMemory.key(parsed.call.source, parsed.call.toolUseId) : undefined

      if (parsed.kind === 'outcome') {
        const seen = key ? memory.get(key, now) : undefined
        if (seen?.outcomes.has(parsed.outcome)) return sendNative(reply, harness.render(event, undefined).body)
        const live = session && app.engine.sessions.status(session.id, now).state === 'active' ? session : undefined
        await app.engine.record(
          {
            kind: 'outcome',
            sessionId: session?.id ?? '',
            signer: live?.signer ?? 'none',
            source: parsed.call.source,
            tool: parsed.call.tool,
            verdict: parsed.outcome,
            monitorMatch: false,
            ruleId: '',
            toolUseId: parsed.call.toolUseId ?? '',
            policyTrace: [],
            payloadHash: payloadHash(parsed.call),
            reason: '',
            ...(seen ? { parentSeq: seen.seq } : {}),
            at: now,
          },
          live,
        )
        seen?.outcomes.add(parsed.outcome)
        return sendNative(reply, harness.render(event, undefined).body)
      }

      // A second delivery of the same tool use (another hook format of the same harness) gets the first answer.
      const duplicate = key && !parsed.derivedId ? memory.replay(key, now) : undefined
      if (duplicate) return sendNative(reply, harness.render(event, duplicate.answer).body)
      const result = await app.engine.check({ ...parsed.call, sessionId: session?.id ?? 'none' })
      const answer: HookAnswer = { verdict: result.verdict, ruleId: result.rule_id, reason: result.reason, ...(result.nudge ? { nudge: result.nudge } : {}) }
      if (key) memory.remember(key, answer, result.ledger_seq, now)
      return sendNative(reply, harness.render(event, answer).body)
    },
  })
}
