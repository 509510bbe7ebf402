/**
 * The grant endpoints: POST /v1/grants (the user's `svc allow`: needs a trusted host key's signature or an
 * operator token; recorded as an `allow_granted` control leaf) and GET /v1/grants (the grants in force). Opening
 * them is what makes the daemon's engine name codes and apply grants (see index.ts).
 */
import { isAbsolute } from 'node:path'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiProblem, readTrustedHostKeys } from '../../core/index.ts'
import { grantState } from './index.ts'
import { GRANT_REQUEST_TTL_MS, grantSignatureValid, requestId, type GrantBody } from './proof.ts'
import { grantBody, grantList, grantView } from './schemas.ts'
import { CODE_PATTERN, GrantStore, type GrantRow } from './store.ts'
import { extensionRegistry } from '../../core/index.ts'

/** A code grant without --for lets one call through, within this long. */
const ONCE_WINDOW_MS = 10 * 60_000
const MAX_CALL_WINDOW_MS = 3_600_000
const MAX_RULE_WINDOW_MS = 24 * 3_600_000
const problem = { $ref: 'Problem#' } as const

/** A refused grant: the problem's `error` names why (grant_unproven, grant_replayed, grant_code_unknown, …). */
function refused(status: number, code: 'unauthorized' | 'forbidden' | 'conflict' | 'not_found' | 'gone' | 'unprocessable', error: string, detail: string): ApiProblem {
  return new ApiProblem(status, code, detail, { error })
}

export default async function grantRoutes(app: FastifyInstance): Promise<void> {
  const { engine } = app
  const store = new GrantStore(engine.home)
  grantState(engine.registry).set('store', store)
  extensionRegistry<(v: 'allow_granted' | 'allow_used', f: Record<string, string>, r: string) => Promise<unknown>>(engine.registry, 'grant-recorder').set(
    'record',
    (verdict, facts, reason) => engine.recordEvent(verdict, facts, reason),
  )

  /** Who vouches for the request: an operator token, or a trusted host key's fresh, first-time signature. */
  const proofOf = (request: FastifyRequest<{ Body: GrantBody }>, now: number): string => {
    const body = request.body
    if (app.auth.isOperator(request)) return app.auth.who(request)
    if (!body.host_public_key || !body.signature) {
      throw refused(
        401,
        'unauthorized',
        'grant_unproven',
        'a grant needs the user’s proof: a signature by a host key the daemon trusts (what `svc allow` sends) or an operator token; an agent has neither',
      )
    }
    const key = readTrustedHostKeys(engine.home).find((k) => k.public_key === body.host_public_key && k.retired_at_ms === undefined)
    if (!key || key.signer === 'unattested') throw refused(403, 'forbidden', 'grant_unproven', 'the grant is signed by a key the daemon does not trust to certify sessions')
    if (key.signer === 'software' && app.env.SVC_ALLOW_SOFTWARE_SIGNER !== '1') {
      throw refused(403, 'forbidden', 'grant_unproven', 'the grant is signed by the software signer, which this daemon refuses (SVC_ALLOW_SOFTWARE_SIGNER is not 1)')
    }
    if (!grantSignatureValid(body.request, body.host_public_key, body.signature)) throw refused(403, 'forbidden', 'grant_unproven', 'the grant signature does not verify')
    if (Math.abs(now - body.request.issued_at_ms) > GRANT_REQUEST_TTL_MS) {
      throw refused(403, 'forbidden', 'grant_unproven', `the signed grant was made at ${new Date(body.request.issued_at_ms).toISOString()}: more than 2 minutes from now`)
    }
    if (!store.firstUse(requestId(body.request), now)) throw refused(409, 'conflict', 'grant_replayed', 'this signed grant was used before: every grant is signed afresh')
    return `host-key:${key.kid}`
  }

  app.post<{ Body: GrantBody }>('/v1/grants', {
    schema: {
      summary: "Grant an allow: one exact call by the code its deny named, or a gate in a project for a window (the user's host-key signature or an operator token)",
      body: grantBody,
      response: { 201: grantView, 401: problem, 403: problem, 404: problem, 409: problem, 410: problem, 422: problem },
    },
    handler: async (request, reply) => {
      const now = Date.now()
      const req = request.body.request
      const who = proofOf(request, now)
      let grant: GrantRow
      let denySeq: number | null = null
      if (req.kind === 'call') {
        if (!CODE_PATTERN.test(req.code)) throw refused(422, 'unprocessable', 'grant_code_unknown', `"${req.code}" is not a grant code (6 letters and digits, as a deny names it)`)
        const code = store.code(req.code)
        if (!code) throw refused(404, 'not_found', 'grant_code_unknown', `no deny named the code ${req.code}`)
        if (code.expires_ms <= now)
          throw refused(410, 'gone', 'grant_code_expired', `the code ${req.code} expired at ${new Date(code.expires_ms).toISOString()}; run the call again for a new one`)
        if (req.for_ms !== undefined && req.for_ms > MAX_CALL_WINDOW_MS) throw refused(422, 'unprocessable', 'grant_window_too_long', 'a call grant lasts at most 1h (--for)')
        denySeq = code.deny_seq
        grant = store.add({
          kind: 'call',
          code: code.code,
          payload_hash: code.payload_hash,
          cwd: code.cwd,
          gates: code.gates,
          project: null,
          once: req.for_ms === undefined,
          created_ms: now,
          expires_ms: now + (req.for_ms ?? ONCE_WINDOW_MS),
          who,
        })
      } else {
        if (!isAbsolute(req.project)) throw refused(422, 'unprocessable', 'grant_project_invalid', `--project must be an absolute directory, not "${req.project}"`)
        if (req.for_ms > MAX_RULE_WINDOW_MS) throw refused(422, 'unprocessable', 'grant_window_too_long', 'a rule grant lasts at most 24h (--for)')
        if (!engine.policy.allGates().some((g) => g.id === req.gate))
          throw refused(404, 'not_found', 'grant_gate_unknown', `no gate "${req.gate}" in the policy (see \`svc policy packs\`)`)
        grant = store.add({
          kind: 'rule',
          code: null,
          payload_hash: null,
          cwd: null,
          gates: [req.gate],
          project: req.project,
          once: false,
          created_ms: now,
          expires_ms: now + req.for_ms,
          who,
        })
      }
      const entry = await engine.recordEvent('allow_granted', grantFacts(grant, denySeq), grantReason(grant))
      store.setGrantedSeq(grant.id, entry.seq)
      reply.code(201)
      return { ...view({ ...grant, granted_seq: entry.seq }), ledger_seq: entry.seq }
    },
  })

  app.get('/v1/grants', {
    schema: { summary: 'The grants in force (unexpired, not used up)', response: { 200: grantList } },
    handler: async () => ({ grants: store.live(Date.now()).map(view) }),
  })
}

function grantFacts(g: GrantRow, denySeq: number | null): Record<string, string> {
  return {
    grant: g.id,
    kind: g.kind,
    gates: g.gates.join(','),
    who: g.who,
    expires_at: new Date(g.expires_ms).toISOString(),
    once: String(g.once),
    ...(g.code ? { code: g.code } : {}),
    ...(g.payload_hash ? { payload_hash: g.payload_hash } : {}),
    ...(g.cwd !== null ? { cwd: g.cwd } : {}),
    ...(g.project ? { project: g.project } : {}),
    ...(denySeq !== null ? { deny_seq: String(denySeq) } : {}),
  }
}

function grantReason(g: GrantRow): string {
  const until = new Date(g.expires_ms).toISOString()
  if (g.kind === 'rule') return `the user lets ${g.gates[0]} through in ${g.project} until ${until}`
  return `the user lets the call of code ${g.code} (${g.gates.join(', ')}) through ${g.once ? 'once' : 'repeatedly'}, until ${until}`
}

function view(g: GrantRow) {
  return {
    id: g.id,
    kind: g.kind,
    gates: [...g.gates],
    once: g.once,
    uses: g.uses,
    expires_at: new Date(g.expires_ms).toISOString(),
    who: g.who,
    ...(g.code ? { code: g.code } : {}),
    ...(g.cwd !== null ? { cwd: g.cwd } : {}),
    ...(g.project ? { project: g.project } : {}),
    ...(g.granted_seq !== null ? { granted_seq: g.granted_seq } : {}),
  }
}
