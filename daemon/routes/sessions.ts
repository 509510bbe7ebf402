/**
 * Session endpoints: create (also rotation) from a bundle signed by the host CLI's long-lived key, list,
 * metadata, heartbeat and per-session insights. The session secret stays in daemon memory; each creation
 * or rotation is a ledger leaf carrying the certificate and signed by the new session key.
 */
import type { FastifyInstance } from 'fastify'
import { ApiProblem } from '../../core/errors.ts'
import { sessionInsights } from '../read-models/insights.ts'
import { admitSession, type SessionCreateRequest } from '../../core/sessions/admit.ts'
import { SessionCreateLimiter } from '../../core/sessions/create-limits.ts'
import { recordedSessions } from '../../core/sessions/history.ts'
import type { Session } from '../../core/sessions/store.ts'
import type { LeafDraft } from '../../core/ledger/leaf.ts'
import { bannerFor } from '../../core/types.ts'
import { renewalOf } from '../renewal.ts'

const SIGNER_KINDS = ['unattested', 'software', 'totp', 'os_keychain', 'hardware_key'] as const
const b64 = { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9+/]*={0,2}$' } as const

const bundleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['v', 'session_id', 'signer', 'issued_at_ms', 'expires_at_ms'],
  properties: {
    v: { type: 'integer' },
    session_id: { type: 'string', pattern: '^ses_[0-9a-f]{24}$' },
    signer: { type: 'string', enum: SIGNER_KINDS },
    session_public_key: b64,
    host_public_key: b64,
    issued_at_ms: { type: 'integer' },
    expires_at_ms: { type: 'integer' },
    user_id: { type: 'string', minLength: 1, maxLength: 256 },
    groups: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 128 } },
    rotates: { type: 'string', maxLength: 64 },
  },
} as const

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    certificate: { type: 'object', additionalProperties: false, required: ['bundle'], properties: { bundle: bundleSchema, signature: b64 } },
    session_secret: b64,
    signer: { type: 'string', enum: SIGNER_KINDS, description: 'Shorthand without a certificate: only "unattested".' },
    user_id: { type: 'string', minLength: 1, maxLength: 256 },
    groups: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 128 } },
  },
} as const

const sessionView = {
  type: 'object',
  required: ['session_id', 'signer', 'state', 'created_at', 'expires_at'],
  properties: {
    session_id: { type: 'string' },
    signer: { type: 'string', enum: SIGNER_KINDS },
    state: { type: 'string', enum: ['active', 'expired', 'ended'] },
    user_id: { type: 'string' },
    groups: { type: 'array', items: { type: 'string' } },
    created_at: { type: 'string' },
    expires_at: { type: 'string' },
    idle_expires_at: { type: 'string' },
    last_seen_at: { type: 'string' },
    session_public_key: { type: 'string' },
    host_public_key: { type: 'string' },
    rotates: { type: 'string' },
    current: { type: 'boolean' },
    ledger_seq: { type: 'integer' },
    banner: { type: 'string' },
  },
} as const

const insightView = {
  type: 'object',
  properties: {
    session_id: { type: 'string' },
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
    top_rules: { type: 'array', items: { type: 'object', properties: { rule_id: { type: 'string' }, count: { type: 'integer' } } } },
    top_tools: { type: 'array', items: { type: 'object', properties: { tool: { type: 'string' }, count: { type: 'integer' } } } },
    first_ms: { type: 'integer' },
    last_ms: { type: 'integer' },
  },
} as const

const iso = (ms: number) => new Date(ms).toISOString()

/** Sessions per page of GET /v1/sessions, by default and at most. */
const PAGE_DEFAULT = 50
const PAGE_MAX = 200

export default async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const { sessions, ledger } = app.engine
  const creationSeq = new Map<string, number>()
  const limiter = new SessionCreateLimiter()

  function view(s: Session, now: number) {
    const state = s.endedAt !== undefined ? 'ended' : sessions.status(s.id, now).state
    const banner = bannerFor(s.signer)?.text
    return {
      session_id: s.id,
      signer: s.signer,
      state,
      ...(s.userId === undefined ? {} : { user_id: s.userId }),
      groups: [...s.groups],
      created_at: iso(s.createdAt),
      expires_at: iso(s.expiresAt),
      idle_expires_at: iso(sessions.idleDeadline(s)),
      last_seen_at: iso(s.lastSeenAt),
      ...(s.publicKey ? { session_public_key: s.publicKey } : {}),
      ...(s.certificate?.bundle.host_public_key ? { host_public_key: s.certificate.bundle.host_public_key } : {}),
      ...(s.rotates ? { rotates: s.rotates } : {}),
      current: sessions.current()?.id === s.id,
      ...(creationSeq.has(s.id) ? { ledger_seq: creationSeq.get(s.id) } : {}),
      ...(banner ? { banner } : {}),
    }
  }

  app.post<{ Body: SessionCreateRequest }>('/v1/sessions/create', {
    schema: {
      summary: 'Create (or rotate to) a session from a bundle signed by the host key',
      body: createBody,
      description:
        'An unattested session, and a rotation that ends a session that is still active, need operator rights (`Authorization: Bearer` from POST /v1/auth/login). ' +
        'Creation is rate-limited for callers without operator rights and live sessions are capped (unattested ones tightly): 429 with Retry-After.',
      response: {
        201: sessionView,
        400: { $ref: 'Problem#' },
        401: { $ref: 'Problem#' },
        403: { $ref: 'Problem#' },
        404: { $ref: 'Problem#' },
        409: { $ref: 'Problem#' },
        429: { $ref: 'Problem#' },
        501: { $ref: 'Problem#' },
      },
    },
    handler: async (request, reply) => {
      const now = Date.now()
      const operator = app.auth.isOperator(request)
      if (!operator) limiter.take(now)
      const admitted = admitSession(request.body, { home: app.engine.home, env: app.env, now })
      const bundle = admitted.certificate!.bundle
      if (sessions.get(bundle.session_id)) throw new ApiProblem(409, 'conflict', `session ${bundle.session_id} already exists`)
      if (bundle.rotates !== undefined && !sessions.get(bundle.rotates) && recordedSessions(ledger, bundle.rotates).length === 0) {
        throw new ApiProblem(404, 'not_found', `session ${bundle.rotates} (to rotate) is not known to this daemon or its ledger`)
      }
      if (!operator) {
        if (admitted.signer === 'unattested')
          throw new ApiProblem(
            401,
            'unauthorized',
            'an unattested session signs nothing, so creating one needs operator rights: POST /v1/auth/login, then send `Authorization: Bearer <token>` (the CLI uses SVC_TOKEN or SVC_ADMIN_PASSWORD)',
          )
        if (bundle.rotates !== undefined && sessions.status(bundle.rotates, now).state === 'active') {
          throw new ApiProblem(
            401,
            'unauthorized',
            `session ${bundle.rotates} is still active: ending it by rotation needs operator rights (POST /v1/auth/login, then \`Authorization: Bearer <token>\`), or wait until it expires`,
          )
        }
      }
      limiter.checkCaps(admitted.signer, sessions.activeCount(now), sessions.activeCount(now, 'unattested'))
      const session = sessions.create(admitted, now)
      const rotated = bundle.rotates !== undefined
      const draft: LeafDraft = {
        kind: 'session',
        sessionId: session.id,
        signer: session.signer,
        source: 'svc',
        tool: '',
        verdict: rotated ? 'session_rotated' : 'session_created',
        monitorMatch: false,
        ruleId: '',
        toolUseId: '',
        policyTrace: [],
        payloadHash: '',
        reason: rotated ? `session rotated from ${bundle.rotates} (signer ${session.signer})` : `session created (signer ${session.signer})`,
        at: now,
        certificate: admitted.certificate,
        facts: { idle_ms: String(sessions.idleMs) }, // the idle window this daemon uses (SVC_SESSION_IDLE), which verify checks
      }
      let entry
      try {
        entry = await app.engine.record(draft, session)
      } catch (err) {
        // Not on the record, so it does not exist: nothing may be decided or signed under it.
        sessions.discard(session.id)
        throw err
      }
      if (rotated) sessions.end(bundle.rotates!, now)
      creationSeq.set(session.id, entry.seq)
      const banner = bannerFor(session.signer)
      if (banner) request.log.warn({ session: session.id }, banner.text)
      return reply.code(201).send(view(session, now))
    },
  })

  app.get<{ Querystring: { limit?: string; cursor?: string } }>('/v1/sessions', {
    schema: {
      summary: 'List sessions, newest first (live ones and ones recorded in the ledger before a restart), a page at a time',
      description: `At most \`limit\` sessions (default ${PAGE_DEFAULT}, at most ${PAGE_MAX}); when more remain, \`next_cursor\` is set: pass it as \`cursor\` for the next page. Pages are stable while sessions are created.`,
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { limit: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' }, cursor: { type: 'string', pattern: '^[0-9]{1,15}\\.ses_[0-9a-f]{24}$' } },
      },
      response: {
        200: { type: 'object', required: ['sessions', 'next_cursor'], properties: { sessions: { type: 'array', items: sessionView }, next_cursor: { type: ['string', 'null'] } } },
      },
    },
    handler: async (request) => {
      const now = Date.now()
      const limit = Math.min(request.query.limit === undefined ? PAGE_DEFAULT : Number(request.query.limit), PAGE_MAX)
      const live = sessions.list().map((s) => ({ at: s.createdAt, view: view(s, now) }))
      const known = new Set(live.map((s) => s.view.session_id))
      const past = recordedSessions(ledger)
        .filter((r) => !known.has(r.bundle.session_id))
        .map((r) => ({
          at: r.bundle.issued_at_ms,
          view: {
            session_id: r.bundle.session_id,
            signer: r.bundle.signer,
            state: 'ended' as const,
            ...(r.bundle.user_id === undefined ? {} : { user_id: r.bundle.user_id }),
            groups: [...(r.bundle.groups ?? [])],
            created_at: iso(r.bundle.issued_at_ms),
            expires_at: iso(r.bundle.expires_at_ms),
            ledger_seq: r.ledgerSeq,
            current: false,
          },
        }))
      // Newest first by (creation time, id); a page token is the key of the last session of its page.
      const key = (s: { at: number; view: { session_id: string } }) => `${String(s.at).padStart(15, '0')}.${s.view.session_id}`
      const all = [...live, ...past].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0))
      const after = request.query.cursor?.split('.')
      const from = after === undefined ? all : all.filter((s) => key(s) < `${after[0]!.padStart(15, '0')}.${after[1]}`)
      const page = from.slice(0, limit)
      const last = page.at(-1)
      return { sessions: page.map((s) => s.view), next_cursor: from.length > limit && last ? `${last.at}.${last.view.session_id}` : null }
    },
  })

  app.get<{ Querystring: { session_id?: string; top?: number } }>('/v1/sessions/insights', {
    schema: {
      summary: 'Per-session activity counts, top rules and top tools',
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { session_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, top: { type: 'string', pattern: '^[1-9][0-9]?$' } },
      },
      response: { 200: { type: 'object', properties: { sessions: { type: 'array', items: insightView } } } },
    },
    handler: async (request) => ({
      sessions: sessionInsights(ledger.store, { sessionId: request.query.session_id, top: request.query.top === undefined ? 5 : Number(request.query.top) }),
    }),
  })

  app.get<{ Params: { id: string } }>('/v1/sessions/:id', {
    schema: {
      summary: 'Session metadata',
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } } },
      response: { 200: sessionView, 404: { $ref: 'Problem#' } },
    },
    handler: async (request) => {
      const s = sessions.get(request.params.id)
      if (s) return view(s, Date.now())
      const past = recordedSessions(ledger, request.params.id).at(-1)
      if (!past) throw new ApiProblem(404, 'not_found', `no session ${request.params.id}`)
      const b = past.bundle
      return {
        session_id: b.session_id,
        signer: b.signer,
        state: 'ended',
        ...(b.user_id === undefined ? {} : { user_id: b.user_id }),
        groups: [...(b.groups ?? [])],
        created_at: iso(b.issued_at_ms),
        expires_at: iso(b.expires_at_ms),
        ledger_seq: past.ledgerSeq,
        current: false,
        ...(b.session_public_key ? { session_public_key: b.session_public_key } : {}),
        ...(b.host_public_key ? { host_public_key: b.host_public_key } : {}),
      }
    },
  })

  app.addHook('preClose', async () => renewalOf(sessions).release())

  app.get<{ Querystring: { wait_ms?: string; renewer?: string; waiting?: 'code' } }>('/v1/sessions/current', {
    schema: {
      summary: 'The session harness hooks use, for the renewer (`svc agent`) and `svc status`',
      description:
        'With `renewer`, the caller announces itself as the renewer of that tier (`waiting=code`: it is asking a person for a TOTP code, which hooks are told); with `wait_ms`, the answer is held (long poll, at most 30 s) until a hook needs a session, a session is created, or the wait ends. It comes at once when there is no active current session.',
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { wait_ms: { type: 'string', pattern: '^[0-9]{1,5}$' }, renewer: { type: 'string', pattern: '^[a-z-]{1,32}$' }, waiting: { type: 'string', enum: ['code'] } },
      },
      response: {
        200: {
          type: 'object',
          required: ['instance_id', 'now', 'state', 'renewal_wanted', 'idle_timeout_ms'],
          properties: {
            instance_id: { type: 'string' },
            now: { type: 'string' },
            state: { type: 'string', enum: ['active', 'expired', 'none'] },
            session: sessionView,
            renewal_wanted: { type: 'boolean' },
            idle_timeout_ms: { type: 'integer' },
            renewer: { type: 'object', properties: { tier: { type: 'string' }, seen_at: { type: 'string' }, waiting: { type: 'string', enum: ['code'] } } },
          },
        },
      },
    },
    handler: async (request, reply) => {
      const renewal = renewalOf(sessions)
      if (request.query.renewer) renewal.seen(request.query.renewer, Date.now(), request.query.waiting)
      const usable = () => {
        const current = sessions.current()
        return current !== undefined && sessions.status(current.id, Date.now()).state === 'active'
      }
      // The wait also ends when the current session expires (idle or lifetime), so the renewer learns of it at once.
      const current0 = sessions.current()
      const untilExpiry = current0 ? sessions.idleDeadline(current0) - Date.now() + 50 : 0
      const waitMs = Math.min(30_000, Number(request.query.wait_ms ?? 0), Math.max(0, untilExpiry))
      if (waitMs > 0 && usable() && !renewal.demanded()) {
        // Ends early when the client goes away; a closing daemon releases every waiter (preClose below).
        let onClose = (): void => undefined
        const gone = new Promise<void>((resolve) => reply.raw.once('close', (onClose = resolve)))
        await Promise.race([renewal.wait(waitMs), gone])
        reply.raw.off('close', onClose)
        if (request.query.renewer) renewal.seen(request.query.renewer, Date.now())
      }
      const now = Date.now()
      const current = sessions.current()
      const info = renewal.renewer()
      return {
        instance_id: renewal.instanceId,
        now: iso(now),
        state: current ? sessions.status(current.id, now).state : 'none',
        ...(current ? { session: view(current, now) } : {}),
        renewal_wanted: renewal.demanded() || !usable(),
        idle_timeout_ms: sessions.idleMs,
        ...(info ? { renewer: { tier: info.tier, seen_at: iso(info.seenAt), ...(info.waiting ? { waiting: info.waiting } : {}) } } : {}),
      }
    },
  })

  app.post<{ Body: { session_id: string } }>('/v1/sessions/heartbeat', {
    schema: {
      summary: 'Keep a session alive (resets its idle timer; never extends its lifetime)',
      body: { type: 'object', additionalProperties: false, required: ['session_id'], properties: { session_id: { type: 'string', minLength: 1, maxLength: 64 } } },
      response: { 200: sessionView, 404: { $ref: 'Problem#' }, 503: { $ref: 'Problem#' } },
    },
    handler: async (request) => {
      const id = request.body.session_id
      const now = Date.now()
      const status = sessions.status(id, now)
      if (status.state === 'unknown') throw new ApiProblem(404, 'not_found', `no session ${id}: mint one with \`svc session create\``)
      if (status.state === 'expired') throw new ApiProblem(503, 'session_expired', `session ${id} has expired: run \`svc session rotate --id ${id}\``)
      sessions.touch(id, now)
      return view(status.session, now)
    },
  })
}
