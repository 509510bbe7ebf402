/**
 * GET /v1/ledger/calls/{seq}/trace: the stored call of a decision leaf decided again, without recording, under
 * the policy loaded now, with every gate of every layer the evaluator ran and why each matched or not (what
 * `svc explain` prints for a call typed by hand). Operator only: a gate's reason can quote the unredacted call.
 */
import type { FastifyInstance } from 'fastify'
import { ApiProblem, type CallPayload, type Engine, type GateTrace } from '../../core/index.ts'
import { explainGates } from './explain.ts'
import type { PayloadStore } from './payload-store.ts'

const gateLine = {
  type: 'object',
  properties: { layer: { type: 'string' }, source: { type: 'string' }, id: { type: 'string' }, on_hit: { type: 'string' }, matched: { type: 'boolean' }, why: { type: 'string' } },
} as const

export function callTraceRoute(app: FastifyInstance, engine: Engine, payloads: () => PayloadStore): void {
  app.get<{ Params: { seq: string } }>('/v1/ledger/calls/:seq/trace', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Every gate of every layer, matched or not and why, for the stored call of a decision leaf under the current policy (nothing is recorded)',
      security: [{ operator: [] }],
      params: { type: 'object', required: ['seq'], properties: { seq: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$' } } },
      response: {
        200: {
          type: 'object',
          properties: {
            seq: { type: 'integer' },
            policy_hash: { type: 'string', description: 'the policy that decided now' },
            recorded_policy_hash: { type: ['string', 'null'], description: 'the policy that decided then (from the leaf)' },
            verdict: { type: 'string' },
            rule_id: { type: 'string' },
            gates: { type: 'array', items: gateLine },
          },
        },
        404: { $ref: 'Problem#' },
        410: { $ref: 'Problem#' },
      },
    },
    handler: async (request) => {
      const seq = Number(request.params.seq)
      const leaf = engine.ledger.leaf(seq)?.leaf
      if (leaf?.type !== 'decision') throw new ApiProblem(404, 'not_found', `no decision leaf at seq ${seq}`)
      const stored = payloads().get(seq)
      if (!stored || stored.payloadHash !== leaf.payload_hash) throw new ApiProblem(410, 'gone', `the call behind seq ${seq} is no longer kept (payload retention)`)
      const call = JSON.parse(stored.body) as CallPayload
      const trace: GateTrace[] = []
      const { decision } = await engine.decide(
        { sessionId: leaf.session_id, source: leaf.source, tool: call.tool, input: call.input, ...(call.cwd ? { cwd: call.cwd } : {}) },
        undefined,
        trace,
      )
      return {
        seq,
        policy_hash: engine.policy.hash,
        recorded_policy_hash: leaf.policy_hash ?? null,
        verdict: decision.verdict,
        rule_id: decision.ruleId,
        gates: explainGates(trace),
      }
    },
  })
}
