/**
 * The installer over HTTP (operator only): POST /v1/install/plan renders unified diffs of what would
 * change in each harness config; POST /v1/install/apply applies a plan by its token (the same token twice
 * is a no-op, a token whose plan no longer matches the files is a 409); POST /v1/uninstall removes every
 * hook entry this control plane wrote, and nothing else.
 */
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiProblem, EngineError, RefusalError } from '../../core/index.ts'
import { harnessRegistry, plannedHarnesses, type HarnessScope } from '../../harness-contract/index.ts'
import { ABSOLUTE_PATH } from '../../daemon/index.ts'
import type { InstallRequest, Plan } from './plan.ts'
import { harnessEnvOf } from './harness-env.ts'
import { selectHarnesses } from './select.ts'

// The planner and the editors (diffs, JSONC and TOML edits, schema checks) load at the first install request,
// not at every daemon start.
const editors = async () => ({ ...(await import('./plan.ts')), ...(await import('./apply.ts')) })

interface InstallBody {
  harnesses?: string[]
  scope?: HarnessScope
  repo?: string
  fail_open?: boolean
  transport?: 'command' | 'http'
  daemon_url?: string
  token?: string
}

const harnessIds = { type: 'array', maxItems: 16, items: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' } } as const
const installProperties = {
  harnesses: harnessIds,
  scope: { type: 'string', enum: ['user', 'repo'] },
  repo: ABSOLUTE_PATH,
  fail_open: { type: 'boolean' },
  transport: { type: 'string', enum: ['command', 'http'] },
  daemon_url: { type: 'string', pattern: '^http://(127\\.0\\.0\\.1|localhost|\\[::1\\]):[0-9]{1,5}$' },
} as const
const token = { type: 'string', pattern: '^(install|uninstall)-[0-9a-f]{32}$' } as const
const planView = {
  type: 'object',
  required: ['kind', 'token', 'install_id', 'files', 'notes', 'warnings'],
  properties: {
    kind: { type: 'string', enum: ['install', 'uninstall'] },
    applied: { type: 'boolean' },
    token: { type: 'string' },
    install_id: { type: 'string' },
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'harnesses', 'diff', 'action'],
        properties: {
          path: { type: 'string' },
          harnesses: { type: 'array', items: { type: 'string' } },
          diff: { type: 'string' },
          action: { type: 'string', enum: ['create', 'modify', 'delete', 'none'] },
        },
      },
    },
    notes: { type: 'array', items: { type: 'string' } },
    warnings: { type: 'array', items: { type: 'string' } },
    skipped: { type: 'array', items: { type: 'object', properties: { harness: { type: 'string' }, reason: { type: 'string' } } } },
  },
} as const
const problems = { 400: { $ref: 'Problem#' }, 401: { $ref: 'Problem#' }, 409: { $ref: 'Problem#' }, 422: { $ref: 'Problem#' }, 501: { $ref: 'Problem#' } } as const

/** The JSON view of a plan (file contents stay out; the diff shows them). */
function planJson(plan: Plan, extra: Record<string, unknown> = {}) {
  return {
    kind: plan.kind,
    token: plan.token,
    install_id: plan.installId,
    files: plan.changes.map((c) => ({
      path: c.path,
      harnesses: c.harnesses,
      diff: c.diff,
      action: c.before === c.after ? 'none' : c.before === undefined ? 'create' : c.after === undefined ? 'delete' : 'modify',
    })),
    notes: plan.notes,
    warnings: plan.warnings,
    ...extra,
  }
}

// Installer failures are the caller's to fix (a broken config file, a schema the result would fail).
function asProblem(err: unknown): never {
  // A ledger failure stays what it is (503): the hooks were written but their record was not.
  if (err instanceof ApiProblem || err instanceof RefusalError || err instanceof EngineError) throw err
  throw new ApiProblem(422, 'unprocessable', (err as Error).message)
}

export default async function installRoutes(app: FastifyInstance): Promise<void> {
  const userHome = app.env.SVC_USER_HOME ?? homedir()
  const registered = () => harnessRegistry(app.engine.registry)

  /** Hooks decide which calls reach the gate at all: every applied change is an operator ledger entry. */
  function ledgerChange(request: FastifyRequest, verdict: 'hooks_installed' | 'hooks_uninstalled', harnesses: readonly { id: string }[], token: string) {
    const ids = harnesses.map((h) => h.id).join(',')
    return app.engine.recordEvent(
      verdict,
      { who: app.auth.who(request), harnesses: ids, plan: token },
      `${verdict === 'hooks_installed' ? 'installed' : 'uninstalled'} hooks of ${ids || 'no harness'}`,
    )
  }

  function installRequest(request: FastifyRequest<{ Body: InstallBody }>) {
    const b = request.body
    const scope = b.scope ?? 'user'
    if (scope === 'repo' && !b.repo) throw new ApiProblem(400, 'invalid_request', 'scope "repo" needs "repo": the repository root to install into')
    const env = harnessEnvOf(app.env, userHome, registered().values(), b.repo ? resolve(b.repo) : undefined)
    const selection = selectHarnesses(registered(), plannedHarnesses(app.engine.registry), b.harnesses, env, scope)
    if (selection.harnesses.length === 0) throw new ApiProblem(422, 'unprocessable', `no supported harness detected at ${scope} scope; name one with "harnesses"`)
    const host = request.headers.host ?? ''
    const daemonUrl = b.daemon_url ?? (/^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(host) ? `http://${host}` : 'http://127.0.0.1:7878')
    const req: InstallRequest = {
      harnesses: selection.harnesses,
      scope,
      env,
      svcHome: app.engine.home,
      daemonUrl,
      failOpen: b.fail_open ?? false,
      transport: b.transport ?? 'command',
    }
    return { req, skipped: selection.skipped }
  }

  app.post<{ Body: InstallBody }>('/v1/install/plan', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Plan hook installation (unified diffs; writes nothing)',
      security: [{ operator: [] }],
      body: { type: 'object', additionalProperties: false, properties: installProperties },
      response: { 200: planView, ...problems },
    },
    handler: async (request) => {
      try {
        const { req, skipped } = installRequest(request)
        const { planInstall } = await editors()
        return planJson(planInstall(req), { skipped })
      } catch (err) {
        asProblem(err)
      }
    },
  })

  app.post<{ Body: InstallBody }>('/v1/install/apply', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Apply a planned installation by its token (idempotent)',
      security: [{ operator: [] }],
      body: { type: 'object', additionalProperties: false, required: ['token'], properties: { ...installProperties, token } },
      response: { 200: planView, ...problems },
    },
    handler: async (request) => {
      try {
        const { req, skipped } = installRequest(request)
        const { applyInstall } = await editors()
        const result = applyInstall(req, request.body.token!)
        if (result.applied) await ledgerChange(request, 'hooks_installed', req.harnesses, request.body.token!)
        request.log.warn({ token: request.body.token, applied: result.applied }, 'harness hooks installed')
        return planJson(result.plan, { applied: result.applied, token: request.body.token, skipped })
      } catch (err) {
        asProblem(err)
      }
    },
  })

  app.post<{ Body: { harnesses?: string[]; scope?: HarnessScope; token?: string; dry_run?: boolean } }>('/v1/uninstall', {
    onRequest: app.auth.requireOperator,
    schema: {
      summary: 'Remove every hook entry this control plane wrote (dry_run: plan only)',
      security: [{ operator: [] }],
      body: { type: 'object', additionalProperties: false, properties: { harnesses: harnessIds, scope: installProperties.scope, token, dry_run: { type: 'boolean' } } },
      response: { 200: planView, ...problems },
    },
    handler: async (request) => {
      try {
        const b = request.body
        const all = registered()
        const harnesses = b.harnesses?.length
          ? selectHarnesses(all, plannedHarnesses(app.engine.registry), b.harnesses, harnessEnvOf(app.env, userHome, all.values()), b.scope ?? 'user').harnesses
          : [...all.values()]
        const req = { svcHome: app.engine.home, harnesses, ...(b.scope ? { scope: b.scope } : {}) }
        const { applyUninstall, planUninstall } = await editors()
        const plan = planUninstall(req)
        if (b.dry_run) return planJson(plan, { applied: false })
        const result = applyUninstall(req, b.token ?? plan.token)
        if (result.applied) await ledgerChange(request, 'hooks_uninstalled', harnesses, b.token ?? plan.token)
        request.log.warn({ applied: result.applied }, 'harness hooks uninstalled')
        return planJson(result.plan, { applied: result.applied, token: b.token ?? plan.token })
      } catch (err) {
        asProblem(err)
      }
    },
  })
}
