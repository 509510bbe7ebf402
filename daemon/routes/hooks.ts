/**
 * POST /v1/hooks/{harness}/{event}: the harness-facing hook, as parse → decide → render. The payload is the
 * harness's own; its plugin parses it, the hook protocol (daemon/hook-protocol/) decides or records it, and
 * the answer goes back in the harness's native shape with `x-svc-hook: 1` (which the shim checks).
 *
 * A pre-tool event never gets an error status: transports that fail open on one (a native HTTP
 * hook) would run the tool. Whatever goes wrong on that path (a body that is not JSON or too large, a
 * payload the harness plugin cannot read, an engine or ledger failure) is a native deny naming why, and
 * recorded in the ledger when the ledger can take it. Post-tool events and unknown routes answer problems.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Engine } from '../../core/engine.ts'
import { ApiProblem } from '../../core/errors.ts'
import { harnessRegistry, HookPayloadError, plannedHarnesses } from '../../harness-contract/index.ts'
import type { HarnessDefinition, HookAnswer } from '../../harness-contract/index.ts'
import { HookProtocol } from '../hook-protocol/protocol.ts'
import { sendProblem, toProblem } from '../server/problem.ts'
import { illFormedAt } from '../../core/well-formed.ts'
import { ensureHookKey, HOOK_NONCE, hookMac } from '../../hook-key/index.ts'

/** Hook payloads can carry file content (file-read events): a larger limit than other routes. */
export const HOOK_BODY_LIMIT = 8 * 1024 * 1024

interface HookParams {
  harness: string
  event: string
}

/**
 * Sends a native answer with `x-svc-hook: 1` and, when the shim sent a nonce, `x-svc-mac` over nonce, route
 * and body under the hook key (hook-key/): the shim trusts nothing else.
 */
function nativeSender(key: string) {
  return (reply: FastifyReply, body: string): FastifyReply => {
    const nonce = reply.request.headers['x-svc-nonce']
    const { harness, event } = reply.request.params as HookParams
    reply.code(200).header('x-svc-hook', '1').type('application/json')
    if (typeof nonce === 'string' && HOOK_NONCE.test(nonce)) reply.header('x-svc-mac', hookMac(key, nonce, harness, event, body))
    return reply.send(body)
  }
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

/** The harness and phase of a route's parameters when they name a served pre-tool event, else undefined. */
function preToolHarness(app: FastifyInstance, params: unknown): HarnessDefinition | undefined {
  const { harness: id, event } = (params ?? {}) as Partial<HookParams>
  if (typeof id !== 'string' || typeof event !== 'string') return undefined
  const harness = harnessRegistry(app.engine.registry).get(id)
  return harness && Object.hasOwn(harness.events, event) && harness.events[event] === 'pre' ? harness : undefined
}

/**
 * Refuses a pre-tool call svc could not read or decide, and records the refusal under the current session
 * (with what little is known: the harness). The answer is a deny even when the ledger cannot take it.
 */
async function refuseUnread(engine: Engine, request: FastifyRequest, harness: string, why: string): Promise<HookAnswer> {
  const reason = `svc could not read this ${harness} hook call (${why}), so it is refused`
  try {
    const session = engine.sessions.current()
    await engine.check({ sessionId: session?.id ?? 'none', source: harness, tool: '', input: {} }, reason)
  } catch (err) {
    request.log.error({ err }, 'could not record a refused hook call')
  }
  return { verdict: 'deny', ruleId: '', reason }
}

export default async function hookRoutes(app: FastifyInstance): Promise<void> {
  const protocol = new HookProtocol(app.engine)
  const sendNative = nativeSender(ensureHookKey(app.engine.home))
  let warnedOldShim = false
  // Errors before the handler runs (body not JSON, too large, wrong content type) on a pre-tool event.
  app.setErrorHandler(async (err: FastifyError, request, reply) => {
    const harness = preToolHarness(app, request.params)
    const problem = toProblem(err, request.routeOptions.bodyLimit)
    // A browser's request (foreign Host, Origin, Sec-Fetch-Site) is refused before anything happens: no native
    // answer and no ledger leaf, so a web page can neither read verdicts nor fill the ledger. Harnesses send none of these.
    if (!harness || problem.code === 'browser_refused') {
      if (problem.status >= 500) request.log.error({ err }, 'request failed')
      return sendProblem(reply, problem)
    }
    const { event } = request.params as HookParams
    const why = problem.status >= 500 ? 'internal error; see the daemon log' : problem.message
    return sendNative(reply, harness.render(event, await refuseUnread(app.engine, request, harness.id, why)).body)
  })

  app.get('/v1/hooks/coverage', {
    schema: {
      summary: 'Harness sessions seen by the hooks, and tool calls that ran ungated',
      description:
        'One row per harness session (by its own session id) since the daemon started: pre-tool calls gated, and tool runs whose post-tool event arrived with no decision (the pre-tool hook was switched off or bypassed; each is also a `hook_bypassed` control leaf). Most recently seen first; at most 256 sessions.',
      response: {
        200: {
          type: 'object',
          required: ['sessions'],
          properties: {
            sessions: {
              type: 'array',
              items: {
                type: 'object',
                required: ['harness', 'gated', 'ungated', 'first_seen_at', 'last_seen_at'],
                properties: {
                  harness: { type: 'string' },
                  harness_session_id: { type: 'string' },
                  cwd: { type: 'string' },
                  gated: { type: 'integer' },
                  ungated: { type: 'integer' },
                  first_seen_at: { type: 'string', format: 'date-time' },
                  last_seen_at: { type: 'string', format: 'date-time' },
                  last_ungated_at: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        },
      },
    },
    handler: async () => ({ sessions: protocol.coverage.sessions() }),
  })

  app.post<{ Params: HookParams; Body: Record<string, unknown> }>('/v1/hooks/:harness/:event', {
    bodyLimit: HOOK_BODY_LIMIT,
    config: { readsIllFormedText: true },
    schema: {
      summary: 'Harness-facing hook (native payload in, native answer out)',
      description:
        'The body is the harness’s own hook payload; unknown fields are ignored. The answer is the harness’s native JSON (possibly empty for an allow) with header `x-svc-hook: 1`. A pre-tool event is never answered with an error status: a body or payload svc cannot read, or a call it cannot decide, is a native deny naming why.',
      params: {
        type: 'object',
        required: ['harness', 'event'],
        properties: { harness: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' }, event: { type: 'string', pattern: '^[A-Za-z0-9_]{1,64}$' } },
      },
      body: { type: 'object', additionalProperties: true },
      response: { 200: { description: 'the harness’s native answer', type: 'object', additionalProperties: true }, 404: { $ref: 'Problem#' }, 501: { $ref: 'Problem#' } },
    },
    handler: async (request, reply) => {
      const { harness: id, event } = request.params
      if (!warnedOldShim && request.headers['x-svc-install'] !== undefined && request.headers['x-svc-nonce'] === undefined) {
        warnedOldShim = true
        request.log.warn("a hook shim without answer authentication is installed: re-run `svc install` so the shim checks the daemon's MAC")
      }
      const harness = lookupHarness(app, id)
      if (!Object.hasOwn(harness.events, event)) {
        throw new ApiProblem(404, 'not_found', `harness "${id}" has no hook event "${event}"; supported: ${Object.keys(harness.events).join(', ')}`)
      }
      const pre = harness.events[event] === 'pre'
      // Text that is not Unicode cannot be read as a call (nor hashed or recorded as sent).
      const unreadable = illFormedAt(request.body, 'payload')
      if (unreadable !== undefined) {
        const why = `field "${unreadable.slice('payload.'.length)}" is not valid Unicode text (a lone UTF-16 surrogate)`
        if (pre) return sendNative(reply, harness.render(event, await refuseUnread(app.engine, request, id, why)).body)
        throw new ApiProblem(400, 'invalid_request', `${id} ${event} payload: ${why}`)
      }
      let parsed
      try {
        parsed = harness.parse(event, request.body)
      } catch (err) {
        const message = err instanceof HookPayloadError ? err.message : 'the harness plugin failed on it; see the daemon log'
        if (!(err instanceof HookPayloadError)) request.log.error({ err }, 'harness parse failed')
        if (pre) return sendNative(reply, harness.render(event, await refuseUnread(app.engine, request, id, `${id} ${event} payload: ${message}`)).body)
        // Whatever the plugin failed on came from the body (e.g. nesting too deep to serialise): the caller's to fix.
        throw new ApiProblem(400, 'invalid_request', `${id} ${event} payload: ${message}`)
      }
      if (parsed.kind === 'ignore') return sendNative(reply, harness.render(event, undefined).body)
      try {
        return sendNative(reply, harness.render(event, await protocol.handle(parsed)).body)
      } catch (err) {
        // A pre-tool call that cannot be decided (engine failure, ledger unavailable) is a native deny.
        const problem = toProblem(err as FastifyError)
        if (problem.status < 500 || parsed.kind === 'outcome') throw err
        request.log.error({ err }, 'hook decision failed; answering deny')
        const why = problem.status === 500 ? 'internal error; see the daemon log' : problem.message
        return sendNative(reply, harness.render(event, { verdict: 'deny', ruleId: '', reason: `svc could not decide this call (${why}), so it is refused` }).body)
      }
    },
  })
}
