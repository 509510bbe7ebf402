/**
 * POST /v1/hooks/{harness}/{event}: the harness-facing hook. The payload is the harness's own; its
 * plugin parses it into a ToolCall, the engine decides it with the daemon's current session, and the
 * answer goes back in the harness's native shape with `x-svc-hook: 1` (which the shim checks).
 * Post-tool events append outcome rows linked to their pre-tool leaf by tool use id; the link and the
 * de-duplication of repeated deliveries are looked up in the ledger, so both hold across daemon restarts.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { ApiProblem } from '../../errors.ts'
import { harnessRegistry, HookPayloadError } from '../../harness.ts'
import type { HarnessDefinition, HookAnswer } from '../../harness.ts'
import { payloadHash } from '../../hash.ts'
import { PLANNED_HARNESSES } from '../../install/select.ts'
import type { LeafObject } from '../../ledger/leaf.ts'
import type { Session } from '../../sessions/store.ts'
import type { ToolCall } from '../../types.ts'
import { HookMemory, REPLAY_MS } from '../hook-memory.ts'
import { toProblem } from '../problem.ts'

/** Hook payloads can carry file content (Cursor beforeReadFile): a larger limit than other routes. */
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
  if (PLANNED_HARNESSES.includes(id)) throw new ApiProblem(501, 'not_implemented', `harness "${id}" is not yet implemented; supported: ${supported}`)
  throw new ApiProblem(404, 'not_found', `unknown harness "${id}"; supported: ${supported}`)
}

/**
 * The answer a recorded decision leaf stands for (a duplicate delivery after a restart). The leaf has no
 * nudge: it comes from the denying gate of the live policy, as `combine` took it.
 */
function answerOf(app: FastifyInstance, leaf: LeafObject): HookAnswer {
  if (leaf.verdict !== 'deny') return { verdict: 'allow', ruleId: leaf.rule_id, reason: leaf.reason }
  const layer = leaf.policy_trace.find((t) => t.rule_id === leaf.rule_id)
  const gate = leaf.rule_id ? app.engine.policy.allGates().find((g) => g.id === leaf.rule_id && (!layer || g.source === layer.source)) : undefined
  return { verdict: 'deny', ruleId: leaf.rule_id, reason: leaf.reason, ...(gate?.nudge ? { nudge: gate.nudge } : {}) }
}

/**
 * Appends the outcome row of a tool use, linked to its decision leaf. A second delivery of the same
 * outcome (after a restart too) finds it in the ledger and appends nothing.
 */
async function recordOutcome(app: FastifyInstance, memory: HookMemory, call: Omit<ToolCall, 'sessionId'>, outcome: 'ran' | 'tool_errored', key: string | undefined): Promise<void> {
  const { ledger } = app.engine
  const toolUseId = call.toolUseId ?? ''
  if (key) await memory.settled(key)
  const parent = ledger.latestDecision(call.source, toolUseId)
  if (key && ledger.hasOutcomeAfter(call.source, toolUseId, parent?.seq ?? -1, outcome)) return
  const now = Date.now()
  const session = app.engine.sessions.current()
  const live = session && app.engine.sessions.status(session.id, now).state === 'active' ? session : undefined
  await app.engine.record(
    {
      kind: 'outcome', sessionId: session?.id ?? '', signer: live?.signer ?? 'none', source: call.source, tool: call.tool, verdict: outcome,
      monitorMatch: false, ruleId: '', toolUseId, policyTrace: [], payloadHash: payloadHash(call), reason: '',
      ...(parent ? { parentSeq: parent.seq } : {}), at: now,
    },
    live,
  )
}

/**
 * The session a pre-tool call is decided under: the current one. When it is missing (a restarted daemon) or
 * expired, the renewer (`svc agent`) is woken and the call waits a bounded moment for the new session, so it
 * is not denied only because the renewal had not happened yet. Without a renewer it decides at once.
 */
async function hookSession(app: FastifyInstance, now: number): Promise<Session | undefined> {
  const { sessions } = app.engine
  const current = sessions.current()
  if (current && sessions.status(current.id, now).state === 'active') return current
  return (await sessions.renewal.awaitRenewal(now, current?.signer)) ? sessions.current() : current
}

/**
 * The answer to a pre-tool call: decided (and recorded) by the engine under the daemon's current session,
 * unless `replayKey` names a tool use answered moments ago. A second delivery of the same tool use
 * (another hook format of the same harness) gets the first answer without a second leaf. An allow is
 * replayed only to the same call: a tool use id never carries an allow to other input.
 */
async function decidePreTool(app: FastifyInstance, memory: HookMemory, call: Omit<ToolCall, 'sessionId'>, callHash: string, replayKey: string | undefined): Promise<HookAnswer> {
  const now = Date.now()
  const previous = replayKey ? app.engine.ledger.latestDecision(call.source, call.toolUseId ?? '') : undefined
  if (previous && now - previous.leaf.ts_ms <= REPLAY_MS) {
    const sameCall = (memory.callHashOf(previous.seq, now) ?? previous.leaf.payload_hash) === callHash || previous.leaf.payload_hash === payloadHash(call)
    if (sameCall || previous.leaf.verdict === 'deny') return memory.answer(previous.seq, now) ?? answerOf(app, previous.leaf)
  }
  const session = await hookSession(app, now)
  const result = await app.engine.check({ ...call, sessionId: session?.id ?? 'none' })
  const answer: HookAnswer = { verdict: result.verdict, ruleId: result.rule_id, reason: result.reason, ...(result.nudge ? { nudge: result.nudge } : {}) }
  memory.remember(result.ledger_seq, answer, callHash, now)
  return answer
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
      const { call } = parsed
      const toolUseId = call.toolUseId ?? ''
      const key = toolUseId ? HookMemory.key(call.source, toolUseId) : undefined

      if (parsed.kind === 'outcome') {
        const outcome = parsed.outcome
        const record = () => recordOutcome(app, memory, call, outcome, key)
        await (key ? memory.once(`${key}\u0000${outcome}`, record) : record())
        return sendNative(reply, harness.render(event, undefined).body)
      }

      // Derived ids name the call, not one use of it: never duplicates, so never replayed (and never hashed
      // for replay: inputs can be megabytes of file content).
      const replayKey = parsed.derivedId ? undefined : key
      const callHash = replayKey ? HookMemory.callHash(call) : ''
      const decide = () => decidePreTool(app, memory, call, callHash, replayKey)
      try {
        // Concurrent duplicates of the same call wait for one decision; a different call under the same id decides.
        const answer = replayKey ? (await memory.once(`${replayKey}\u0000${callHash}`, decide)).value : await decide()
        return sendNative(reply, harness.render(event, answer).body)
      } catch (err) {
        // A pre-tool call that cannot be decided (engine failure, ledger unavailable) is never an error status:
        // transports that fail open on one (Claude's HTTP hook) would run the tool. It is a native deny.
        const problem = toProblem(err as FastifyError)
        if (problem.status < 500) throw err
        request.log.error({ err }, 'hook decision failed; answering deny')
        const why = problem.status === 500 ? 'internal error; see the daemon log' : problem.message
        return sendNative(reply, harness.render(event, { verdict: 'deny', ruleId: '', reason: `svc could not decide this call (${why}), so it is refused` }).body)
      }
    },
  })
}
