/**
 * MCP pinning: POST /v1/mcp/pin/check (unseen → queued on first sighting; a pinned server with another
 * fingerprint is a mismatch; only an operator's check replaces the fingerprint waiting for review),
 * POST /v1/mcp/pin/accept (operator: pins the exact fingerprint named, ledgered), POST /v1/mcp/pin/reject
 * (operator: marks it rejected, ledgered; its calls stay denied saying so), and GET /v1/mcp/pins
 * (the pin list; fingerprints and identities, never env or header values).
 */
import { homedir } from 'node:os'
import type { FastifyInstance } from 'fastify'
import { ApiProblem } from '../../core/index.ts'
import { harnessRegistry } from '../../harness-contract/index.ts'
import { ABSOLUTE_PATH } from '../../daemon/index.ts'
import { identityOf } from './fingerprint.ts'
import type { McpToolInfo, ServerIdentity } from './fingerprint.ts'
import { PinStore } from './pin-store.ts'
import { configuredServers, findRepoRoot, resolveServer } from './resolve.ts'

interface CheckBody {
  server: string
  harness?: string
  cwd?: string
  identity?: { transport: ServerIdentity['transport']; command?: string; args?: string[]; cwd?: string; url?: string; tcp?: string; env_names?: string[]; header_names?: string[] }
  tools?: { name: string; description?: string; input_schema?: unknown }[]
}

const name = { type: 'string', minLength: 1, maxLength: 256 } as const
const names = { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 256 } } as const
const identitySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['transport'],
  properties: {
    transport: { type: 'string', enum: ['stdio', 'http', 'sse', 'tcp'] },
    command: { type: 'string', maxLength: 4096 },
    args: { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 4096 } },
    cwd: { type: 'string', maxLength: 4096 },
    url: { type: 'string', maxLength: 4096 },
    tcp: { type: 'string', maxLength: 512 },
    env_names: names,
    header_names: names,
  },
  // What the transport connects to must be given: a fingerprint of "stdio, no command" pins nothing.
  allOf: [
    // biome-ignore-start lint/suspicious/noThenProperty: JSON Schema's if/then keywords; this object is a schema, never awaited
    { if: { properties: { transport: { const: 'stdio' } } }, then: { required: ['command'] } },
    { if: { properties: { transport: { enum: ['http', 'sse'] } } }, then: { required: ['url'] } },
    { if: { properties: { transport: { const: 'tcp' } } }, then: { required: ['tcp'] } },
    // biome-ignore-end lint/suspicious/noThenProperty: JSON Schema's if/then keywords
  ],
} as const
const checkResult = {
  type: 'object',
  required: ['server', 'state', 'fingerprint'],
  properties: {
    server: { type: 'string' },
    state: { type: 'string', enum: ['queued', 'pinned', 'mismatch'] },
    fingerprint: { type: 'string' },
    pinned_fingerprint: { type: 'string' },
  },
} as const
const pinView = {
  type: 'object',
  required: ['server', 'state', 'first_seen', 'last_seen'],
  properties: {
    server: { type: 'string' },
    state: { type: 'string', enum: ['queued', 'pinned'] },
    pinned_fingerprint: { type: 'string' },
    pending_fingerprint: { type: 'string' },
    pending_source: { type: 'string' },
    latest_fingerprint: { type: 'string', description: 'a later, different sighting by a caller without operator rights (never replaces the pending one)' },
    latest_source: { type: 'string' },
    identity: { type: 'object', additionalProperties: true },
    served_fingerprint: { type: 'string', description: 'the tool list svc mcp-proxy last saw (set hash); accept it to pin what the server serves' },
    served_stale: { type: 'boolean', description: 'the server announced a changed tool list not verified yet' },
    first_seen: { type: 'string' },
    last_seen: { type: 'string' },
    rejected_fingerprint: { type: 'string', description: 'the waiting fingerprint an operator rejected (its calls are denied until one is accepted)' },
    rejected_by: { type: 'string' },
    ledger_seq: { type: 'integer', description: 'accept and reject only: the mcp_pin_accepted / mcp_pin_rejected ledger entry' },
  },
} as const

/** An operator's accept or reject of the exact fingerprint reviewed. */
function pinDecisionSchema(summary: string, description: string) {
  return {
    summary,
    description,
    security: [{ operator: [] }],
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['server', 'fingerprint'],
      properties: { server: name, fingerprint: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' } },
    },
    response: { 200: pinView, 400: { $ref: 'Problem#' }, 401: { $ref: 'Problem#' }, 404: { $ref: 'Problem#' }, 409: { $ref: 'Problem#' } },
  } as const
}

function view(record: ReturnType<PinStore['list']>[number]) {
  return {
    server: record.server,
    state: record.state,
    ...(record.pinned ? { pinned_fingerprint: record.pinned.fingerprint } : {}),
    ...(record.pending ? { pending_fingerprint: record.pending.fingerprint, pending_source: record.pending.source } : {}),
    ...(record.latest ? { latest_fingerprint: record.latest.fingerprint, latest_source: record.latest.source } : {}),
    identity: record.pending?.identity ?? record.pinned?.identity ?? {},
    ...(record.rejected ? { rejected_fingerprint: record.rejected.fingerprint, rejected_by: record.rejected.who } : {}),
    ...(record.served?.fingerprint ? { served_fingerprint: record.served.fingerprint, served_stale: record.served.stale } : {}),
    first_seen: record.firstSeen,
    last_seen: record.lastSeen,
  }
}

export default async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const store = new PinStore(app.engine.home)
  const userHome = app.env.SVC_USER_HOME ?? homedir()

  app.get('/v1/mcp/pins', {
    schema: {
      summary: 'MCP servers seen, queued and pinned',
      response: { 200: { type: 'object', required: ['servers'], properties: { servers: { type: 'array', items: pinView } } } },
    },
    handler: async () => ({ servers: store.list().map(view) }),
  })

  app.post<{ Body: CheckBody }>('/v1/mcp/pin/check', {
    schema: {
      summary: 'Check an MCP server fingerprint (first sighting queues it)',
      description: 'Without an operator token a sighting never replaces the fingerprint waiting for `svc mcp pin accept`; a different one is kept as `latest_fingerprint`.',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['server'],
        properties: {
          server: name,
          harness: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' },
          cwd: ABSOLUTE_PATH,
          identity: identitySchema,
          tools: {
            type: 'array',
            maxItems: 1024,
            items: { type: 'object', additionalProperties: false, required: ['name'], properties: { name, description: { type: 'string', maxLength: 16384 }, input_schema: {} } },
          },
        },
      },
      response: { 200: checkResult, 400: { $ref: 'Problem#' }, 404: { $ref: 'Problem#' } },
    },
    handler: async (request) => {
      const b = request.body
      let identity: ServerIdentity
      let source = b.harness ?? 'api'
      if (b.identity) {
        const { env_names: envNames, header_names: headerNames, ...rest } = b.identity
        identity = identityOf({ ...rest, ...(envNames ? { envNames } : {}), ...(headerNames ? { headerNames } : {}) })
      } else {
        const registry = harnessRegistry(app.engine.registry)
        const own = b.harness ? registry.get(b.harness) : undefined
        if (b.harness && !own) throw new ApiProblem(404, 'not_found', `unknown harness "${b.harness}"; supported: ${[...registry.keys()].join(', ')}`)
        const entries = configuredServers(own ? [own] : [...registry.values()], { home: userHome, repo: findRepoRoot(b.cwd), env: {} })
        const resolved = resolveServer(entries, b.server, undefined)
        if (resolved.from === 'name') throw new ApiProblem(404, 'not_found', `no MCP server "${b.server}" in the harness configs svc can read; send its identity instead`)
        identity = resolved.identity
        source = b.harness ?? 'config'
      }
      const tools: McpToolInfo[] | undefined = b.tools?.map((t) => ({
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        ...(t.input_schema !== undefined ? { inputSchema: t.input_schema } : {}),
      }))
      const check = store.check(b.server, identity, source, { ...(tools ? { tools } : {}), operator: app.auth.isOperator(request) })
      return { server: check.server, state: check.state, fingerprint: check.fingerprint, ...(check.pinnedFingerprint ? { pinned_fingerprint: check.pinnedFingerprint } : {}) }
    },
  })

  app.post<{ Body: { server: string; fingerprint: string } }>('/v1/mcp/pin/accept', {
    onRequest: app.auth.requireOperator,
    schema: pinDecisionSchema(
      'Accept a queued (or changed) MCP server pin (operator)',
      'Pins exactly `fingerprint`, which must be the one the operator reviewed (pending or latest); 409 when the server now waits with another. Recorded in the ledger.',
    ),
    handler: async (request) => {
      const record = store.accept(request.body.server, request.body.fingerprint)
      const pinned = record.pinned!.fingerprint
      const entry = await app.engine.recordEvent(
        'mcp_pin_accepted',
        { who: app.auth.who(request), server: record.server, fingerprint: pinned },
        `MCP server "${record.server}" pinned at ${pinned}`,
      )
      request.log.warn({ server: record.server, fingerprint: pinned, ledger_seq: entry.seq }, 'MCP server pinned')
      return { ...view(record), ledger_seq: entry.seq }
    },
  })

  app.post<{ Body: { server: string; fingerprint: string } }>('/v1/mcp/pin/reject', {
    onRequest: app.auth.requireOperator,
    schema: pinDecisionSchema(
      'Reject a queued (or changed) MCP server pin (operator)',
      'Marks exactly `fingerprint` (pending or latest) rejected: the server stays unpinned and its calls are denied with a reason naming the rejection until an operator accepts a fingerprint. Recorded in the ledger.',
    ),
    handler: async (request) => {
      const who = app.auth.who(request)
      const record = store.reject(request.body.server, request.body.fingerprint, who)
      const fingerprint = record.rejected!.fingerprint
      const entry = await app.engine.recordEvent('mcp_pin_rejected', { who, server: record.server, fingerprint }, `MCP server "${record.server}" rejected at ${fingerprint}`)
      request.log.warn({ server: record.server, fingerprint, ledger_seq: entry.seq }, 'MCP server rejected')
      return { ...view(record), ledger_seq: entry.seq }
    },
  })
}
