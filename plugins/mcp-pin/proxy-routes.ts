/**
 * The daemon side of `svc mcp-proxy` (cli/mcp-proxy/): POST /v1/mcp/proxy/{event}, authenticated like the hook
 * shim (the relay sends a fresh `x-svc-nonce`; the answer carries `x-svc-hook: 1` and `x-svc-mac`, an HMAC under
 * `$SVC_HOME/hook.key` over nonce, "mcp-proxy", event and body), so nothing else on the port can answer allow.
 *
 * - `call`: a `tools/call`, `resources/read` or `prompts/get` the client sent, decided by the same engine and
 *   ledger as hooks (`source: "mcp-proxy"`, tool `mcp__<server>__<tool>` or `mcp__<server>__<method>`), through
 *   the hook protocol (session, duplicate deliveries), linked to the hook's decision of the same call.
 *   Whatever goes wrong is an error status, which the relay answers with a deny (fail closed).
 * - `outcome`: what the server answered to an allowed call (`ran`, or `tool_errored` for `isError`/an error).
 * - `tools`: one page of a `tools/list` result; answers each tool's pin state (the relay shows only pinned ones).
 * - `list-changed`: `notifications/tools/list_changed`: the server's tools are stale until listed again.
 * - `log`: a batch of the messages the relay passed without a verdict (traffic.ts), and how many it dropped.
 */
import { homedir } from 'node:os'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ApiProblem, extensionRegistry, mcpToolName } from '../../core/index.ts'
import { harnessRegistry, type HookAnswer } from '../../harness-contract/index.ts'
import { HookProtocol } from '../../daemon/index.ts'
import { ensureHookKey, HOOK_NONCE, hookMac } from '../../hook-key/index.ts'
import { toolInfo, type RuntimeIdentity } from './fingerprint.ts'
import { PinStore } from './pin-store.ts'
import { PROXY_LINKER, ProxyLinker } from './proxy-link.ts'
import { configuredServers, findRepoRoot, resolveServer } from './resolve.ts'
import { toolPinState } from './tool-state.ts'
import { trafficOf, type TrafficEntry } from './traffic.ts'

export const PROXY_SOURCE = 'mcp-proxy'
const GATED = new Set(['tools/call', 'resources/read', 'prompts/get'])

interface ProxyBody {
  server: string
  harness?: string
  identity: { command: string; args: string[]; cwd: string }
  method?: string
  params?: Record<string, unknown>
  request_id?: string
  outcome?: 'ran' | 'tool_errored'
  tools?: Record<string, unknown>[]
  first?: boolean
  last?: boolean
  entries?: TrafficEntry[]
  dropped?: number
}

const EVENTS = ['call', 'outcome', 'tools', 'list-changed', 'log']

const body = {
  type: 'object',
  additionalProperties: false,
  required: ['server', 'identity'],
  properties: {
    server: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
    harness: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' },
    identity: {
      type: 'object',
      additionalProperties: false,
      required: ['command', 'args', 'cwd'],
      properties: {
        command: { type: 'string', minLength: 1, maxLength: 4096 },
        args: { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 4096 } },
        cwd: { type: 'string', maxLength: 4096 },
      },
    },
    method: { type: 'string', maxLength: 64 },
    params: { type: 'object' },
    request_id: { type: 'string', maxLength: 256 },
    outcome: { type: 'string', enum: ['ran', 'tool_errored'] },
    tools: { type: 'array', maxItems: 4096, items: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 256 } } } },
    first: { type: 'boolean' },
    last: { type: 'boolean' },
    entries: {
      type: 'array',
      maxItems: 256,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['at', 'from', 'kind', 'bytes'],
        properties: {
          at: { type: 'string', maxLength: 64 },
          from: { type: 'string', enum: ['client', 'server'] },
          kind: { type: 'string', enum: ['request', 'notification', 'response', 'error', 'other'] },
          method: { type: 'string', maxLength: 64 },
          id: { type: 'string', maxLength: 128, description: 'the JSON-RPC id as JSON text' },
          bytes: { type: 'integer', minimum: 0 },
          refused: { type: 'string', maxLength: 200, description: 'why the relay dropped the message instead of passing it' },
        },
      },
    },
    dropped: { type: 'integer', minimum: 0 },
  },
} as const

/** The policy's view of a gated MCP request: canonical tool name and input. */
function asCall(server: string, method: string, params: Record<string, unknown>): { tool: string; input: Record<string, unknown> } {
  if (method === 'tools/call') {
    const args = params.arguments
    return {
      tool: mcpToolName(server, String(params.name ?? '')),
      input: typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {},
    }
  }
  const { _meta: _, ...input } = params
  return { tool: mcpToolName(server, method), input }
}

export default async function proxyRoutes(app: FastifyInstance): Promise<void> {
  const key = ensureHookKey(app.engine.home)
  const protocol = new HookProtocol(app.engine)
  const linker = extensionRegistry<ProxyLinker>(app.engine.registry, PROXY_LINKER).get('linker') ?? new ProxyLinker()
  const store = new PinStore(app.engine.home)
  const harnesses = harnessRegistry(app.engine.registry)
  const userHome = app.env.SVC_USER_HOME ?? homedir()

  const send = (reply: FastifyReply, event: string, answer: unknown): FastifyReply => {
    const text = JSON.stringify(answer)
    const nonce = reply.request.headers['x-svc-nonce']
    reply.code(200).header('x-svc-hook', '1').type('application/json')
    if (typeof nonce === 'string' && HOOK_NONCE.test(nonce)) reply.header('x-svc-mac', hookMac(key, nonce, PROXY_SOURCE, event, text))
    return reply.send(text)
  }
  const deny = (reason: string): HookAnswer => ({ verdict: 'deny', ruleId: '', reason })

  /** The server's identity as the hook path resolves it: its config entry when the runtime matches, else the runtime. */
  function identityOf(b: ProxyBody) {
    const runtime: RuntimeIdentity = { command: b.identity.command, args: b.identity.args, cwd: b.identity.cwd }
    const own = b.harness ? harnesses.get(b.harness) : undefined
    const entries = configuredServers(own ? [own] : [...harnesses.values()], { home: userHome, repo: findRepoRoot(b.identity.cwd), env: {} })
    return { runtime, identity: resolveServer(entries, b.server, runtime).identity }
  }

  app.post<{ Params: { event: string }; Body: ProxyBody }>('/v1/mcp/proxy/:event', {
    schema: {
      summary: 'svc mcp-proxy: decide an MCP request, record its outcome, pin a tools/list page, mark a tool list stale, log relayed messages',
      description:
        'Called by the `svc mcp-proxy` relay only. Answers carry `x-svc-hook: 1` and `x-svc-mac` (HMAC under the hook key over nonce, `mcp-proxy`, event and body). The relay denies (fail closed) on any other answer, an error status included.',
      params: { type: 'object', required: ['event'], properties: { event: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } } },
      body,
      response: {
        200: {
          description: 'the event’s answer (a verdict for `call`, pin states for `tools`, `{ok: true}` otherwise), with `x-svc-hook: 1` and `x-svc-mac`',
          type: 'object',
          additionalProperties: true,
        },
        400: { $ref: 'Problem#' },
        404: { $ref: 'Problem#' },
      },
    },
    handler: async (request, reply) => {
      const { event } = request.params
      if (!EVENTS.includes(event)) throw new ApiProblem(404, 'not_found', `svc mcp-proxy has no event "${event}"; supported: ${EVENTS.join(', ')}`)
      const b = request.body
      if (event === 'log') {
        trafficOf(app.engine).add(b.server, b.entries ?? [], b.dropped ?? 0)
        return send(reply, event, { ok: true })
      }
      if (event === 'list-changed') {
        store.markStale(b.server)
        return send(reply, event, { ok: true })
      }
      if (event === 'tools') {
        const { identity } = identityOf(b)
        const page = (b.tools ?? []).map((t) => toolInfo(t))
        const record = store.recordServed(b.server, identity, page, { first: b.first ?? true, last: b.last ?? true })
        const tools = page.map((t) => ({ name: t.name, ...toolPinState(record, t.name)! }))
        return send(reply, event, { server: b.server, fingerprint: record.served?.fingerprint ?? null, tools: tools.map(({ name, state, why }) => ({ name, state, why })) })
      }
      const method = b.method ?? ''
      if (!GATED.has(method)) return send(reply, event, event === 'call' ? deny(`svc mcp-proxy does not gate "${method}"`) : { ok: true })
      const { runtime } = identityOf(b)
      const { tool, input } = asCall(b.server, method, b.params ?? {})
      const toolUseId = `mcp-proxy:${b.request_id ?? ''}`
      const meta = { mcp_context: { server_name: b.server, tool_name: tool.slice(`mcp__${b.server}__`.length), ...runtime }, mcp_method: method }
      const call = { source: PROXY_SOURCE, tool, input, cwd: b.identity.cwd, toolUseId, meta }
      if (event === 'outcome') {
        await protocol.handle({ kind: 'outcome', outcome: b.outcome ?? 'ran', call })
        return send(reply, event, { ok: true })
      }
      const linkSeq = linker.find(tool, input, b.identity.cwd)
      const answer = await protocol.handle({ kind: 'call', call: { ...call, ...(linkSeq === undefined ? {} : { linkSeq }) } })
      return send(reply, event, answer ?? deny('svc recorded no decision for this MCP request'))
    },
  })
}
