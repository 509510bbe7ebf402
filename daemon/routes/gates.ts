/** GET /v1/gates and GET /v1/policy/view: the live gates with their source, state and counters. */
import type { FastifyInstance } from 'fastify'
import type { CompiledGate } from '../../core/policy/compiled.ts'
import { gateStats } from '../read-models/gate-stats.ts'
import { gateKey } from '../../core/state/state-db.ts'
import { ABSOLUTE_PATH } from './schemas.ts'

const gateRow = {
  type: 'object',
  required: ['id', 'source', 'layer', 'on_hit', 'disabled', 'matched_count', 'last_hit_at'],
  properties: {
    id: { type: 'string' },
    source: { type: 'string' },
    layer: { type: 'string' },
    on_hit: { type: 'string' },
    disabled: { type: 'boolean' },
    matched_count: { type: 'integer' },
    last_hit_at: { type: ['string', 'null'] },
  },
} as const

const viewGate = {
  type: 'object',
  required: ['id', 'source', 'layer', 'policy_mode', 'on_hit', 'require_strong', 'disabled', 'when', 'file'],
  properties: {
    id: { type: 'string' },
    description: { type: 'string' },
    source: { type: 'string' },
    layer: { type: 'string' },
    policy_mode: { type: 'string' },
    on_hit: { type: 'string' },
    require_strong: { type: 'boolean' },
    disabled: { type: 'boolean' },
    disabled_by: { type: 'object', additionalProperties: true },
    nudge: { type: 'string' },
    when: { type: 'object', additionalProperties: true },
    evaluate: { type: 'array', items: { type: 'object', additionalProperties: true } },
    file: { type: 'string' },
    line: { type: 'integer' },
    fingerprint: { type: 'string' },
  },
} as const

const fileStatus = {
  type: 'object',
  required: ['path', 'layer', 'source', 'status', 'gates'],
  properties: {
    path: { type: 'string' },
    layer: { type: 'string' },
    source: { type: 'string' },
    status: { type: 'string', enum: ['ok', 'error', 'absent'] },
    mode: { type: 'string' },
    gates: { type: 'integer' },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, loc: { type: 'object', additionalProperties: true } } },
  },
} as const

export default async function gateRoutes(app: FastifyInstance): Promise<void> {
  const isDisabled = (g: CompiledGate) => app.engine.policy.isDisabled(g)

  app.get<{ Querystring: { cwd?: string } }>('/v1/gates', {
    schema: {
      summary: 'Active gates with matched count and last hit; `cwd` adds every repo layer a call there meets',
      querystring: { type: 'object', additionalProperties: false, properties: { cwd: ABSOLUTE_PATH } },
      response: { 200: { type: 'object', required: ['gates'], properties: { gates: { type: 'array', items: gateRow } } } },
    },
    handler: async (request) => {
      const repos = app.engine.policy.repoLayers(request.query.cwd, Date.now())
      const sealed = new Set(repos.flatMap((r) => [...r.disabled])) // what a repo's valid seals disable for calls in it
      const own = app.engine.policy.allGates().filter((g) => g.node && !isDisabled(g))
      return {
        gates: [...own, ...repos.flatMap((r) => r.active)]
          .filter((g) => !sealed.has(g.id))
          .map((g) => {
            const stats = app.engine.state.stats(gateKey(g.source, g.id))
            return {
              id: g.id,
              source: g.source,
              layer: g.layer,
              on_hit: g.onHit,
              disabled: false,
              matched_count: stats.matched,
              last_hit_at: stats.lastHitAt ? new Date(stats.lastHitAt).toISOString() : null,
            }
          }),
      }
    },
  })

  app.get('/v1/gates/stats', {
    schema: {
      summary: 'Hits per gate from the ledger: last 24 h, 7 d and 30 d, the verdict split over 30 d, and the last hit',
      response: {
        200: {
          type: 'object',
          required: ['gates'],
          properties: {
            gates: {
              type: 'array',
              items: {
                type: 'object',
                required: ['rule_id', 'hits_24h', 'hits_7d', 'hits_30d', 'verdicts', 'last_hit_at'],
                properties: {
                  rule_id: { type: 'string' },
                  hits_24h: { type: 'integer' },
                  hits_7d: { type: 'integer' },
                  hits_30d: { type: 'integer' },
                  verdicts: { type: 'object', properties: { allow: { type: 'integer' }, deny: { type: 'integer' }, monitor_alert: { type: 'integer' } } },
                  last_hit_at: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
    handler: async () => ({ gates: gateStats(app.engine.ledger.store, Date.now()).map(({ last_hit_ms: last, ...s }) => ({ ...s, last_hit_at: new Date(last).toISOString() })) }),
  })

  app.get<{ Querystring: { cwd?: string } }>('/v1/policy/view', {
    schema: {
      summary: 'Live policy as dashboard-friendly gates, each with its source; `cwd` adds that repo’s layer',
      querystring: { type: 'object', additionalProperties: false, properties: { cwd: ABSOLUTE_PATH } },
      response: {
        200: {
          type: 'object',
          required: ['mode', 'policy_hash', 'status', 'files', 'warnings', 'gates'],
          properties: {
            mode: { type: 'string' },
            policy_hash: { type: 'string' },
            status: { type: 'string', enum: ['ok', 'degraded'] },
            files: { type: 'array', items: fileStatus },
            warnings: { type: 'array', items: { type: 'object', properties: { file: { type: 'string' }, gate_id: { type: 'string' }, message: { type: 'string' } } } },
            gates: { type: 'array', items: viewGate },
          },
        },
      },
    },
    handler: async (request) => {
      const policy = app.engine.policy
      const files = policy.files().filter((f) => f.status !== 'absent')
      const repo = policy.repoPolicy(request.query.cwd, Date.now())
      if (repo) {
        files.push({
          path: repo.src.path,
          layer: 'repo',
          source: repo.src.source,
          status: repo.problem ? 'error' : repo.good ? 'ok' : 'absent',
          mode: repo.good?.mode,
          gates: repo.good?.gates.length ?? 0,
          error: repo.problem,
        })
      }
      // A repo file's sealed false-positive markers disable gates for calls in that repo: shown with the view of its cwd.
      const repoDisabled = repo ? policy.repoDisables(repo) : new Set<string>()
      const gates = [...policy.allGates(), ...(repo?.good?.gates ?? [])].map((g) => ({
        id: g.id,
        description: g.description,
        source: g.source,
        layer: g.layer,
        policy_mode: g.policyMode,
        on_hit: g.onHit,
        require_strong: g.requireStrong,
        disabled: isDisabled(g) || repoDisabled.has(g.id),
        disabled_by: g.disabledBy,
        nudge: g.nudge,
        when: g.when,
        evaluate: g.evaluate,
        file: g.loc.file,
        line: g.loc.line,
        fingerprint: g.fingerprint,
      }))
      return {
        mode: app.engine.mode(),
        policy_hash: policy.hash,
        status: files.some((f) => f.status === 'error') ? 'degraded' : 'ok',
        files,
        warnings: policy.warnings.map((w) => ({ file: w.file, gate_id: w.gateId, message: w.message })),
        gates,
      }
    },
  })
}
