/**
 * The false-positive workflow over HTTP: GET a case bundle (raw payload only for operators who ask), POST
 * validate (anyone on loopback: it changes nothing), POST apply and revert (operator), and GET the redacted
 * calls behind ledger entries for `svc log`.
 */
import type { FastifyInstance } from 'fastify'
import type { Engine } from '../../core/index.ts'
import { applyCase, revertApply } from './apply.ts'
import { buildBundle, bundleBytes, redactedSummary } from './bundle.ts'
import { callTraceRoute } from './call-trace.ts'
import { caseEvent, casePolicyHash, eligibleLeaf, refusal } from './case-event.ts'
import type { BundleView } from './draft.ts'
import type { PayloadStore } from './payload-store.ts'
import { DEFAULT_REPLAY_LIMIT, MAX_REPLAY_LIMIT, replayCase } from './replay.ts'
import { TARGET_CHOICES } from './target.ts'
import type { Validated, ValidateRequest } from './validate.ts'

// The case editors (YAML, the replacement compiler) load at the first request that drafts or validates a case,
// not at every daemon start.
const validateCase: typeof import('./validate.ts').validateCase = async (...args) => (await import('./validate.ts')).validateCase(...args)

const seqParam = { type: 'object', required: ['seq'], properties: { seq: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$' } } } as const
const problem = { $ref: 'Problem#' } as const
const fixture = {
  type: 'object',
  additionalProperties: false,
  required: ['expect'],
  // `command` is shorthand for tool Bash; otherwise the call is `tool` and `input`.
  anyOf: [{ required: ['command'] }, { required: ['tool', 'input'] }],
  properties: {
    name: { type: 'string', maxLength: 500 },
    tool: { type: 'string', maxLength: 256 },
    input: { type: 'object' },
    command: { type: 'string', maxLength: 65536 },
    cwd: { type: 'string', maxLength: 4096 },
    harness: { type: 'string', maxLength: 64 },
    expect: { type: 'string', enum: ['deny', 'monitor_alert'] },
    rule: { type: 'string', maxLength: 256 },
  },
} as const
const caseBody = {
  type: 'object',
  additionalProperties: false,
  required: ['bundle', 'replacement_yaml'],
  properties: {
    bundle: { type: 'object', additionalProperties: true, description: 'the case bundle from GET /v1/false-positives/cases/{seq}' },
    replacement_yaml: { type: 'string', maxLength: 65536, description: 'one gate (YAML mapping) replacing the matched gate' },
    target: { type: 'string', enum: TARGET_CHOICES },
    note: { type: 'string', maxLength: 500 },
    examples: { type: 'array', maxItems: 100, items: fixture, description: 'extra malicious calls the replacement must still block' },
    policy_hash: { type: 'string', maxLength: 128, description: 'apply: the bundle’s policy_hash (stale → 409)' },
  },
} as const
const targetView = { type: 'object', properties: { choice: { type: 'string' }, path: { type: 'string' }, layer: { type: 'string' }, source: { type: 'string' } } } as const
const validation = {
  type: 'object',
  required: ['valid', 'seq', 'replacement_id', 'target', 'policy_hash', 'examples_checked', 'diff'],
  properties: {
    valid: { type: 'boolean' },
    seq: { type: 'integer' },
    gate_id: { type: 'string' },
    replacement_id: { type: 'string' },
    target: targetView,
    policy_hash: { type: 'string' },
    examples_checked: { type: 'integer' },
    examples_skipped: { type: 'integer' },
    still_denied_by: { type: 'array', items: { type: 'string' } },
    diff: { type: 'string' },
    apply_seq: { type: 'integer' },
    disabled_by: { type: 'object', additionalProperties: true },
  },
} as const

function validationView(v: Validated) {
  return {
    valid: true,
    seq: v.c.leaf.seq,
    gate_id: v.c.gate.id,
    replacement_id: v.replacement.gate.id,
    target: { choice: v.target.choice, path: v.target.path, layer: v.target.layer, source: v.target.source },
    policy_hash: v.policyHash,
    examples_checked: v.examplesChecked,
    examples_skipped: v.examplesSkipped,
    still_denied_by: v.stillDeniedBy,
    diff: v.edit.diff,
  }
}

type CaseBody = ValidateRequest & { policy_hash?: string }

/** The routes of one engine's workflow over its payload store. */
export function falsePositiveRoutes(payloads: () => PayloadStore) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const engine: Engine = app.engine
    const home = () => engine.evalContext().home

    app.get<{ Params: { seq: string }; Querystring: { include_raw?: 'true' | 'false' } }>('/v1/false-positives/cases/:seq', {
      schema: {
        summary: 'Case bundle of a denied (or monitor-alert) call: redacted, deterministic (canonical JSON); raw payload only with include_raw=true and an operator token',
        params: seqParam,
        querystring: { type: 'object', additionalProperties: false, properties: { include_raw: { type: 'string', enum: ['true', 'false'] } } },
        response: { 200: { type: 'object', additionalProperties: true }, 404: problem, 409: problem, 410: problem, 422: problem, 401: problem },
      },
      handler: async (request, reply) => {
        const raw = request.query.include_raw === 'true'
        if (raw) await app.auth.requireOperator(request, reply)
        const c = caseEvent(engine, payloads(), Number(request.params.seq))
        const disabled = engine.policy.isDisabled(c.gate) || (c.repo !== undefined && engine.policy.repoDisables(c.repo).has(c.gate.id))
        const bundle = buildBundle(c, { policyHash: casePolicyHash(engine, c.repo), home: home(), disabled, raw })
        return reply.type('application/json; charset=utf-8').send(bundleBytes(bundle))
      },
    })

    app.get<{ Params: { seq: string } }>('/v1/false-positives/cases/:seq/draft', {
      schema: {
        summary: 'The replacement draft for a case (the matched gate minus exactly this call), as `svc false-positive <seq>` writes it; untrusted until validated',
        params: seqParam,
        response: {
          200: {
            type: 'object',
            required: ['replacement_yaml', 'exact'],
            properties: {
              replacement_yaml: { type: 'string' },
              exact: { type: 'boolean', description: 'false when the exclusion could not be made exact (a redacted call, no command or path)' },
            },
          },
          404: problem,
          409: problem,
          410: problem,
          422: problem,
        },
      },
      handler: async (request) => {
        const c = caseEvent(engine, payloads(), Number(request.params.seq))
        const disabled = engine.policy.isDisabled(c.gate) || (c.repo !== undefined && engine.policy.repoDisables(c.repo).has(c.gate.id))
        const bundle = JSON.parse(bundleBytes(buildBundle(c, { policyHash: casePolicyHash(engine, c.repo), home: home(), disabled, raw: false })).toString()) as BundleView
        const draft = (await import('./draft.ts')).draftReplacement(bundle)
        return { replacement_yaml: draft.yaml, exact: draft.exact }
      },
    })

    app.post<{ Body: CaseBody }>('/v1/false-positives/validate', {
      schema: {
        summary: 'Validates a replacement gate against a case: parses, does not match the original event, still blocks the gate’s malicious examples',
        body: caseBody,
        response: { 200: validation, 404: problem, 409: problem, 410: problem, 422: problem },
      },
      handler: async (request) => validationView(await validateCase(engine, payloads(), request.body)),
    })

    const replayed = {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          seq: { type: 'integer' },
          tool: { type: 'string' },
          recorded: { type: 'string' },
          now: { type: 'string' },
          candidate: { type: 'string' },
          rule_id: { type: 'string' },
          redacted: { type: 'boolean' },
        },
      },
    } as const
    app.post<{ Params: { seq: string }; Body: CaseBody; Querystring: { limit?: string } }>('/v1/false-positives/cases/:seq/replay', {
      schema: {
        summary:
          'Validates a replacement, then decides the newest stored calls again (local gates, nothing recorded) under the live policy and with the replacement applied: which past denies would now be allowed, which allows denied',
        params: seqParam,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: {
              type: 'string',
              pattern: '^[1-9][0-9]{0,3}$',
              description: `newest recorded decisions to replay (default ${DEFAULT_REPLAY_LIMIT}, at most ${MAX_REPLAY_LIMIT})`,
            },
          },
        },
        body: caseBody,
        response: {
          200: {
            type: 'object',
            required: ['seq', 'replayed', 'now_allowed', 'now_denied'],
            properties: {
              seq: { type: 'integer' },
              replacement_id: { type: 'string' },
              replayed: { type: 'integer' },
              skipped: { type: 'integer' },
              now_allowed: replayed,
              now_denied: replayed,
            },
          },
          404: problem,
          409: problem,
          410: problem,
          422: problem,
        },
      },
      handler: async (request) => {
        const seq = Number(request.params.seq)
        eligibleLeaf(engine, seq)
        if (request.body.bundle.event?.seq !== seq) throw refusal(422, 'invalid_bundle', `bundle.event.seq must be ${seq}, the case in the path`)
        const v = await validateCase(engine, payloads(), request.body)
        return {
          seq,
          replacement_id: v.replacement.gate.id,
          ...(await replayCase(engine, payloads(), v, Math.min(Number(request.query.limit ?? DEFAULT_REPLAY_LIMIT), MAX_REPLAY_LIMIT))),
        }
      },
    })

    app.post<{ Body: CaseBody }>('/v1/false-positives/apply', {
      onRequest: app.auth.requireOperator,
      schema: {
        summary: 'Atomically disables the matched gate (sealed) and appends the replacement in the target policy file; recorded in the ledger',
        security: [{ operator: [] }],
        body: { ...caseBody, required: ['bundle', 'replacement_yaml', 'policy_hash'] },
        response: { 201: validation, 404: problem, 409: problem, 410: problem, 422: problem },
      },
      handler: async (request, reply) => {
        const v = await validateCase(engine, payloads(), request.body)
        const entry = await applyCase(engine, v, request.body.policy_hash!)
        return reply.code(201).send({ ...validationView(v), apply_seq: entry.seq, disabled_by: v.edit.disabledBy })
      },
    })

    app.post<{ Body: { apply_seq: number } }>('/v1/false-positives/revert', {
      onRequest: app.auth.requireOperator,
      schema: {
        summary: 'Restores the policy file a false-positive apply changed (when unchanged since); recorded in the ledger',
        security: [{ operator: [] }],
        body: { type: 'object', additionalProperties: false, required: ['apply_seq'], properties: { apply_seq: { type: 'integer', minimum: 0 } } },
        response: {
          200: {
            type: 'object',
            properties: { reverted: { type: 'boolean' }, apply_seq: { type: 'integer' }, revert_seq: { type: 'integer' }, path: { type: 'string' }, gate_id: { type: 'string' } },
          },
          404: problem,
          409: problem,
        },
      },
      handler: async (request) => {
        const { entry, journal } = await revertApply(engine, request.body.apply_seq)
        return { reverted: true, apply_seq: journal.apply_seq, revert_seq: entry.seq, path: journal.path, gate_id: journal.gate_id }
      },
    })

    callTraceRoute(app, engine, payloads)

    app.get<{ Querystring: { seqs: string } }>('/v1/ledger/calls', {
      schema: {
        summary: 'The redacted calls behind decision leaves (command, path, URL, cwd), while payload retention keeps them',
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['seqs'],
          properties: { seqs: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})(,(0|[1-9][0-9]{0,14})){0,499}$' } },
        },
        response: { 200: { type: 'object', properties: { calls: { type: 'array', items: { type: 'object', additionalProperties: true } } } } },
      },
      handler: async (request) => {
        const store = payloads()
        const calls = request.query.seqs.split(',').flatMap((s) => {
          const seq = Number(s)
          const stored = store.get(seq)
          const leaf = engine.ledger.leaf(seq)?.leaf
          if (!stored || !leaf || leaf.payload_hash !== stored.payloadHash) return []
          const r = redactedSummary(JSON.parse(stored.body), home())
          return [{ seq, input: r.input, redacted: r.changes.length > 0 }]
        })
        return { calls }
      },
    })
  }
}
