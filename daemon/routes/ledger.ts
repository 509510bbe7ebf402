/**
 * Ledger endpoints: the signed root, inclusion proofs any RFC 6962 verifier can check with SHA-256 alone,
 * stateless tuple verification, consistency proofs between two tree sizes, and a paginated entry list.
 */
import type { FastifyInstance } from 'fastify'
import { ApiProblem } from '../../core/errors.ts'
import { verifyNative } from '../../core/ledger/ed25519.ts'
import { queryLeaves } from '../read-models/ledger-query.ts'
import { verifyTuple, type VerifyTuple } from '../../ledger-verify/verify-tuple.ts'
import { recordedSessions } from '../../core/sessions/history.ts'

const b64 = (b: Buffer) => b.toString('base64')
const b64Schema = { type: 'string', maxLength: 1_400_000 } as const
// At most 15 digits: every value is then an exact JS number (a 16-digit seq would be silently rounded).
const intString = { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$' } as const

const rootView = {
  type: 'object',
  required: ['origin', 'root', 'tree_size', 'seq', 'signer'],
  properties: {
    origin: { type: 'string' },
    root: { type: 'string', description: 'base64 Merkle root (RFC 6962)' },
    root_hex: { type: 'string' },
    tree_size: { type: 'integer' },
    seq: { type: ['integer', 'null'], description: 'seq of the newest leaf; null for an empty ledger' },
    signer: { type: 'string', description: 'signer kind of the current session, or "none"' },
    session_id: { type: 'string' },
    session_public_key: { type: 'string' },
    checkpoint: { type: 'string', description: 'C2SP signed note over the root, signed by the current session key' },
    vkey: { type: 'string' },
    witnesses: {
      type: 'array',
      description: 'the newest checkpoint each configured C2SP witness cosigned (present when witnesses are configured)',
      items: {
        type: 'object',
        required: ['witness', 'tree_size', 'root', 'cosignature', 'timestamp'],
        properties: {
          witness: { type: 'string' },
          tree_size: { type: 'integer' },
          root: { type: 'string' },
          cosignature: { type: 'string', description: 'the tlog-cosignature line, verified against the witness key' },
          timestamp: { type: 'integer' },
          error: { type: 'string', description: 'why the last submission failed, if it did' },
        },
      },
    },
  },
} as const

const proofView = {
  type: 'object',
  properties: {
    seq: { type: 'integer' },
    tree_size: { type: 'integer' },
    leaf: { type: 'string', description: 'base64 of the exact JCS leaf bytes' },
    leaf_hash: { type: 'string', description: 'base64 SHA-256(0x00 ‖ leaf)' },
    leaf_sig: { type: ['string', 'null'], description: 'base64 Ed25519 signature over "svc/leaf-sig/v1\\n" ‖ leaf_hash' },
    session_id: { type: 'string' },
    session_public_key: { type: 'string' },
    proof: { type: 'array', items: { type: 'string' } },
    root: { type: 'string' },
  },
} as const

const verifyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['leaf', 'seq', 'tree_size', 'proof', 'root'],
  properties: {
    leaf: b64Schema,
    seq: { type: 'integer', minimum: 0 },
    tree_size: { type: 'integer', minimum: 0 },
    proof: { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 128 } },
    root: { type: 'string', maxLength: 128 },
    leaf_sig: { type: 'string', maxLength: 128 },
    session_public_key: { type: 'string', maxLength: 128 },
  },
} as const

interface EntriesQuery {
  after?: string
  before?: string
  limit?: string
  order?: 'asc' | 'desc'
  verdict?: string
  rule?: string
  session?: string
  harness?: string
  tool?: string
  since?: string
  until?: string
}

/** An ISO 8601 time or epoch milliseconds; anything else is a 400 naming the parameter. */
function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const ms = /^[0-9]{1,15}$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(ms)) throw new ApiProblem(400, 'invalid_request', `${name} must be an ISO 8601 time or epoch milliseconds, not "${value}"`)
  return ms
}

const entryView = {
  type: 'object',
  properties: {
    seq: { type: 'integer' },
    leaf: { type: 'object', additionalProperties: true },
    leaf_hash: { type: 'string' },
    signature: { type: ['string', 'null'] },
  },
} as const

export default async function ledgerRoutes(app: FastifyInstance): Promise<void> {
  const { ledger, sessions } = app.engine

  function sessionPublicKey(sessionId: string): string | undefined {
    return sessions.get(sessionId)?.publicKey ?? recordedSessions(ledger, sessionId).at(-1)?.bundle.session_public_key
  }

  app.get('/v1/ledger/root', {
    schema: { summary: 'Current Merkle root, sequence and signer kind, signed by the current session key', response: { 200: rootView } },
    handler: async () => {
      const size = ledger.size()
      const root = ledger.root()
      const current = sessions.current()
      const active = current && sessions.status(current.id, Date.now()).state === 'active' ? current : undefined
      const witnessed = ledger.cosignatures()
      const base = {
        origin: ledger.origin,
        root: b64(root),
        root_hex: root.toString('hex'),
        tree_size: size,
        seq: size === 0 ? null : size - 1,
        signer: active?.signer ?? 'none',
        ...(witnessed.length > 0 ? { witnesses: witnessed } : {}),
      }
      if (!active) return base
      const signed = active.signCheckpoint?.(ledger)
      return {
        ...base,
        session_id: active.id,
        ...(active.publicKey ? { session_public_key: active.publicKey } : {}),
        ...(signed
          ? { checkpoint: signed.note, vkey: signed.vkey, root: b64(signed.root), root_hex: signed.root.toString('hex'), tree_size: signed.treeSize, seq: signed.treeSize - 1 }
          : {}),
      }
    },
  })

  app.get<{ Params: { seq: string }; Querystring: { tree_size?: string } }>('/v1/ledger/proof/:seq', {
    schema: {
      summary: 'Inclusion proof (RFC 6962 audit path) for the leaf at seq',
      params: { type: 'object', required: ['seq'], properties: { seq: intString } },
      querystring: { type: 'object', additionalProperties: false, properties: { tree_size: intString } },
      response: { 200: proofView, 404: { $ref: 'Problem#' }, 400: { $ref: 'Problem#' } },
    },
    handler: async (request) => {
      const seq = Number(request.params.seq)
      const treeSize = request.query.tree_size === undefined ? ledger.size() : Number(request.query.tree_size)
      const stored = ledger.leaf(seq)
      if (!stored) throw new ApiProblem(404, 'not_found', `no ledger leaf at seq ${seq} (tree size ${ledger.size()})`)
      if (treeSize <= seq || treeSize > ledger.size()) throw new ApiProblem(400, 'invalid_request', `tree_size must be above ${seq} and at most ${ledger.size()}`)
      const proof = ledger.inclusionProof(seq, treeSize)
      const key = sessionPublicKey(stored.leaf.session_id)
      return {
        seq,
        tree_size: proof.treeSize,
        leaf: Buffer.from(stored.body, 'utf8').toString('base64'),
        leaf_hash: b64(stored.leafHash),
        leaf_sig: stored.signature ? b64(stored.signature) : null,
        session_id: stored.leaf.session_id,
        ...(key ? { session_public_key: key } : {}),
        proof: proof.proof.map(b64),
        root: b64(proof.root),
      }
    },
  })

  app.get<{ Querystring: { limit?: string } }>('/v1/ledger/checkpoints', {
    schema: {
      summary: 'Signed checkpoints issued so far, newest first: tree size, root, who signed, when, the signed note',
      querystring: { type: 'object', additionalProperties: false, properties: { limit: { type: 'string', pattern: '^[1-9][0-9]{0,3}$' } } },
      response: {
        200: {
          type: 'object',
          properties: {
            checkpoints: {
              type: 'array',
              items: {
                type: 'object',
                properties: { tree_size: { type: 'integer' }, root: { type: 'string' }, signer_kid: { type: 'string' }, created_at: { type: 'string' }, note: { type: 'string' } },
              },
            },
          },
        },
      },
    },
    handler: async (request) => {
      const rows = ledger.store.recentCheckpoints(Number(request.query.limit ?? 100))
      return {
        checkpoints: rows.map((c) => ({ tree_size: c.treeSize, root: b64(c.root), signer_kid: c.signerKid, created_at: new Date(c.createdMs).toISOString(), note: c.note })),
      }
    },
  })

  app.post<{ Body: VerifyTuple }>('/v1/ledger/verify', {
    schema: {
      summary: 'Offline verification of a (leaf, seq, proof, root) tuple; touches no state',
      body: verifyBody,
      response: {
        200: {
          type: 'object',
          required: ['valid', 'checks'],
          properties: {
            valid: { type: 'boolean' },
            reason: { type: 'string' },
            leaf_hash: { type: 'string' },
            checks: { type: 'object', properties: { leaf: { type: 'string' }, inclusion: { type: 'string' }, signature: { type: 'string' } } },
          },
        },
        400: { $ref: 'Problem#' },
      },
    },
    handler: async (request) => verifyTuple(request.body, verifyNative),
  })

  app.get<{ Querystring: { from: string; to?: string } }>('/v1/ledger/consistency', {
    schema: {
      summary: 'Consistency proof (RFC 6962 SUBPROOF) between tree sizes from and to',
      querystring: { type: 'object', additionalProperties: false, required: ['from'], properties: { from: intString, to: intString } },
      response: {
        200: {
          type: 'object',
          properties: {
            from: { type: 'integer' },
            to: { type: 'integer' },
            proof: { type: 'array', items: { type: 'string' } },
            root_from: { type: 'string' },
            root_to: { type: 'string' },
          },
        },
        400: { $ref: 'Problem#' },
      },
    },
    handler: async (request) => {
      const from = Number(request.query.from)
      const to = request.query.to === undefined ? ledger.size() : Number(request.query.to)
      if (from < 1 || from > to || to > ledger.size()) {
        throw new ApiProblem(400, 'invalid_request', `need 1 <= from <= to <= ${ledger.size()} (a consistency proof from an empty tree is meaningless)`)
      }
      return { from, to, proof: ledger.consistencyProof(from, to).map(b64), root_from: b64(ledger.root(from)), root_to: b64(ledger.root(to)) }
    },
  })

  app.get<{ Querystring: EntriesQuery }>('/v1/ledger/entries', {
    schema: {
      summary: 'Ledger entries, filtered by verdict, rule, session, harness, tool and time; ascending after `after` (default) or newest first (`order=desc`, paged by `before`)',
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          after: { type: 'string', pattern: '^(-1|0|[1-9][0-9]{0,14})$' },
          before: intString,
          limit: { type: 'string', pattern: '^[1-9][0-9]{0,3}$' },
          order: { type: 'string', enum: ['asc', 'desc'] },
          verdict: { type: 'string', pattern: '^[a-z_]{1,32}(,[a-z_]{1,32}){0,15}$', description: 'comma-separated verdicts, e.g. deny,monitor_alert' },
          rule: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,255}$' },
          session: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,256}$' },
          harness: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' },
          tool: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,256}$' },
          since: { type: 'string', pattern: '^[0-9][0-9TZ:.+-]{0,39}$', description: 'ISO 8601 time or epoch milliseconds' },
          until: { type: 'string', pattern: '^[0-9][0-9TZ:.+-]{0,39}$', description: 'ISO 8601 time or epoch milliseconds' },
        },
      },
      response: {
        200: {
          type: 'object',
          properties: {
            entries: { type: 'array', items: entryView },
            next_after: { type: ['integer', 'null'] },
            next_before: { type: ['integer', 'null'] },
            tree_size: { type: 'integer' },
          },
        },
      },
    },
    handler: async (request) => {
      const q = request.query
      const order = q.order ?? 'asc'
      if (order === 'asc' && q.before !== undefined) throw new ApiProblem(400, 'invalid_request', '`before` pages newest-first lists: use it with order=desc')
      if (order === 'desc' && q.after !== undefined) throw new ApiProblem(400, 'invalid_request', '`after` pages ascending lists: use `before` with order=desc')
      const limit = Math.min(q.limit === undefined ? 100 : Number(q.limit), 1000)
      const filter = {
        verdicts: q.verdict?.split(','),
        rule: q.rule,
        session: q.session,
        source: q.harness,
        tool: q.tool,
        sinceMs: timeParam(q.since, 'since'),
        untilMs: timeParam(q.until, 'until'),
      }
      const from = order === 'asc' ? (q.after === undefined ? -1 : Number(q.after)) : q.before === undefined ? undefined : Number(q.before)
      const rows = queryLeaves(ledger.store.db, filter, { from, order, limit, size: ledger.size() })
      const entries = rows.map((r) => ({ seq: r.seq, leaf: JSON.parse(r.body) as unknown, leaf_hash: r.leafHash.toString('hex'), signature: r.sig ? b64(r.sig) : null }))
      const last = rows.length === limit ? rows.at(-1)!.seq : null
      return { entries, next_after: order === 'asc' ? last : null, next_before: order === 'desc' ? last : null, tree_size: ledger.size() }
    },
  })
}
