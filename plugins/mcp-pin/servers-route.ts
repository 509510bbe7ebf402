/**
 * GET /v1/mcp/servers: every MCP server the harness configs define (user scope, and the repository of `cwd`),
 * whether it runs through `svc mcp-proxy` (wrapped), whether svc governs it, and its pin state, tool by tool
 * where the proxy has seen its tool list; plus servers seen at run time that no config defines. `svc mcp list`
 * and the dashboard read it. Identities carry names of env vars and headers, never their values.
 */
import { homedir } from 'node:os'
import type { FastifyInstance } from 'fastify'
import { harnessRegistry } from '../../harness-contract/index.ts'
import { ABSOLUTE_PATH } from '../../daemon/index.ts'
import { identityOf } from './fingerprint.ts'
import { PinStore, type PinRecord } from './pin-store.ts'
import { configuredServers, findRepoRoot } from './resolve.ts'
import { toolPinState } from './tool-state.ts'

function pinOf(record: PinRecord | undefined) {
  if (!record) return { state: 'unseen' }
  return {
    state: record.state === 'pinned' && record.pending ? 'mismatch' : record.state,
    ...(record.pinned ? { pinned_fingerprint: record.pinned.fingerprint } : {}),
    ...(record.pending ? { pending_fingerprint: record.pending.fingerprint } : {}),
    ...(record.served?.fingerprint ? { served_fingerprint: record.served.fingerprint, stale: record.served.stale } : {}),
  }
}

function toolsOf(record: PinRecord | undefined) {
  if (!record?.served) return undefined
  return record.served.tools.map((t) => {
    const pin = toolPinState(record, t.name)!
    return { name: t.name, state: pin.state, why: pin.why, ...(pin.changed?.length ? { changed: pin.changed } : {}) }
  })
}

const serverView = {
  type: 'object',
  required: ['name', 'transport', 'wrapped', 'governed', 'pin'],
  properties: {
    name: { type: 'string' },
    harness: { type: 'string' },
    file: { type: 'string' },
    transport: { type: 'string' },
    wrapped: { type: 'boolean', description: 'the entry runs the server through `svc mcp-proxy`' },
    governed: { type: 'boolean', description: 'svc sees what the server offers and every tools/call, resources/read and prompts/get (wrapped stdio servers)' },
    ungoverned_reason: { type: 'string' },
    identity: { type: 'object', additionalProperties: true },
    pin: { type: 'object', additionalProperties: true, properties: { state: { type: 'string', enum: ['unseen', 'queued', 'pinned', 'mismatch'] } } },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: { name: { type: 'string' }, state: { type: 'string' }, why: { type: 'string' }, changed: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
} as const

export default async function serversRoute(app: FastifyInstance): Promise<void> {
  const store = new PinStore(app.engine.home)
  const userHome = app.env.SVC_USER_HOME ?? homedir()
  app.get<{ Querystring: { cwd?: string } }>('/v1/mcp/servers', {
    schema: {
      summary: 'MCP servers in the harness configs (wrapped or not) and seen at run time, with pin state',
      querystring: { type: 'object', additionalProperties: false, properties: { cwd: ABSOLUTE_PATH } },
      response: { 200: { type: 'object', required: ['servers'], properties: { servers: { type: 'array', items: serverView } } } },
    },
    handler: async (request) => {
      const harnesses = [...harnessRegistry(app.engine.registry).values()]
      const entries = configuredServers(harnesses, { home: userHome, repo: findRepoRoot(request.query.cwd), env: {} })
      const pins = new Map(store.list().map((r) => [r.server, r]))
      const servers: unknown[] = entries.map((e) => {
        const record = pins.get(e.name)
        const remote = e.transport !== 'stdio'
        const wrapped = e.wrapped === true
        const tools = toolsOf(record)
        return {
          name: e.name,
          harness: e.harness,
          file: e.file,
          transport: e.transport,
          wrapped,
          governed: wrapped,
          ...(wrapped
            ? {}
            : {
                ungoverned_reason: remote
                  ? 'remote server: svc mcp-proxy relays stdio servers only, so svc sees its calls only through harness hooks and never what it offers'
                  : `not wrapped: run \`svc mcp wrap ${e.name}\``,
              }),
          identity: identityOf(e),
          pin: pinOf(record),
          ...(tools ? { tools } : {}),
        }
      })
      const configured = new Set(entries.map((e) => e.name))
      for (const record of pins.values()) {
        if (configured.has(record.server)) continue
        const tools = toolsOf(record)
        const identity = record.served?.identity ?? record.pending?.identity ?? record.pinned?.identity ?? { transport: 'unknown' }
        servers.push({
          name: record.server,
          transport: identity.transport,
          wrapped: false,
          governed: record.served !== undefined,
          ...(record.served ? {} : { ungoverned_reason: 'seen at run time only, in no harness config svc reads' }),
          identity,
          pin: pinOf(record),
          ...(tools ? { tools } : {}),
        })
      }
      return { servers }
    },
  })
}
