/**
 * MCP pinning in the decision path. A preEvaluate tap resolves the server of every MCP call (config
 * files of the calling harness, cross-checked with runtime facts such as Gemini `mcp_context` or Cursor's
 * url/command), fingerprints it and checks the pin store (first sighting queues it). The `mcp_pin` leaf
 * predicate then matches unpinned or changed servers, so the built-in gate `mcp.unpinned-server` denies
 * them through the normal policy path (modes, trace, nudge, ledger). Its routes (routes.ts) check and
 * accept pins over HTTP.
 */
import { defineGateKind, extensionRegistry, mcpToolName, STAGE, UNRESOLVED_MCP_SERVER, type EnginePlugin, type EvalRequest } from '../../core/index.ts'
import { harnessRegistry } from '../../harness-contract/index.ts'
import { lazyRoutes } from '../../daemon/index.ts'
import { runtimeIdentityOf } from './fingerprint.ts'
import { PROXY_LINKER, ProxyLinker } from './proxy-link.ts'
import { PinStore } from './pin-store.ts'
import { configuredServers, findRepoRoot, resolveServer, serverForRuntime } from './resolve.ts'
import { toolPinState } from './tool-state.ts'

/** Where the pin verdict rides on the request (always overwritten here, so a caller cannot preset it). */
const META_KEY = 'svc_mcp_pin'

interface PinFacts {
  readonly server: string
  readonly state: 'queued' | 'pinned' | 'mismatch' | 'stale'
  readonly fingerprint: string
  readonly pinned_fingerprint?: string
  /** Set when the server's served tool list decided (tool-level pin, tool-state.ts): the tool and why. */
  readonly tool?: string
  readonly why?: string
  /** An operator rejected this fingerprint (`svc mcp pin reject`). */
  readonly rejected?: boolean
}

const STATES = ['queued', 'mismatch', 'stale'] as const

const gate = defineGateKind<readonly string[] | string>({
  kind: 'mcp_pin',
  description:
    "Matches MCP calls whose pin is in one of the given states (queued = not pinned yet, mismatch = changed since pinned, stale = the server announced a changed tool list not verified yet). Tool by tool where svc mcp-proxy has seen the server's tool list, else per server.",
  schema: {
    anyOf: [
      { type: 'string', enum: STATES },
      { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: STATES } },
    ],
  },
  compile(value) {
    const states = new Set(typeof value === 'string' ? [value] : value)
    return function mcpPinMatches(request) {
      if (!request.mcp) return undefined
      const facts = request.meta?.[META_KEY] as PinFacts | undefined
      if (!facts || !states.has(facts.state)) return undefined
      const accept = `\`svc mcp pin accept ${facts.server}\``
      if (facts.rejected)
        return `MCP server "${facts.server}" (fingerprint ${facts.fingerprint.slice(0, 19)}…) was rejected by an operator; its calls are denied until an operator accepts it (${accept}) or it is removed from the harness config`
      if (facts.tool !== undefined) {
        const fp = facts.fingerprint ? ` (now ${facts.fingerprint.slice(0, 19)}…)` : ''
        if (facts.state === 'stale') return `MCP server "${facts.server}": ${facts.why}; calls wait until the proxy has verified its fresh tool list`
        return `MCP tool "${facts.tool}" of server "${facts.server}" is not pinned: ${facts.why}${fp}; an operator must review it (\`svc mcp list\`) and run ${accept}`
      }
      if (facts.state === 'mismatch') {
        return `MCP server "${facts.server}" changed since it was pinned (now ${facts.fingerprint.slice(0, 19)}…, pinned ${String(facts.pinned_fingerprint).slice(0, 19)}…); an operator must review it and run ${accept}`
      }
      return `MCP server "${facts.server}" is not pinned (fingerprint ${facts.fingerprint.slice(0, 19)}…); an operator must review it and run ${accept}`
    }
  },
  index: () => ({ facets: ['mcp'] }),
})

const plugin: EnginePlugin = {
  name: 'mcp-pin',
  dependsOn: ['normalise:tool-input'],
  apply(host) {
    gate.apply(host)
    host.bring(lazyRoutes(() => import('./all-routes.ts')))
    // Hook decisions of MCP calls, remembered as they are written, so the proxy's decision of the same call links to them.
    const linker = new ProxyLinker()
    extensionRegistry<ProxyLinker>(host.registry, PROXY_LINKER).set('linker', linker)
    host.hooks.ledgerAppend.tap('mcp-pin', (entry) => linker.observe(entry))
    const harnesses = harnessRegistry(host.registry)
    let store: PinStore | undefined
    host.hooks.preEvaluate.tap({ name: 'mcp-pin', stage: STAGE.DEFAULT }, (request, ctx): EvalRequest => {
      const meta = { ...(request.meta ?? {}) }
      delete meta[META_KEY]
      if (!request.mcp) return { ...request, meta }
      const runtime = runtimeIdentityOf(meta.mcp_context)
      const own = harnesses.get(request.source)
      const env = { home: ctx.home, repo: findRepoRoot(request.cwd), env: {} }
      const entries = configuredServers(own ? [own] : [...harnesses.values()], env)
      let { server, tool } = request.mcp
      // `mcp__a__b__c` splits at the first `__`, but a configured server may be named `a__b`: the longest
      // configured name the tool name starts with is the server (else a server `github__evil` would pass as
      // the pinned `github`). A harness that names the server itself (Gemini mcp_context) is believed.
      const named = typeof (meta.mcp_context as { server_name?: unknown } | undefined)?.server_name === 'string'
      if (!named) {
        const longest = entries
          .map((e) => e.name)
          .filter((n) => request.tool.startsWith(`mcp__${n}__`) && request.tool.length > n.length + 7)
          .sort((a, b) => b.length - a.length)[0]
        if (longest !== undefined && longest !== server) {
          server = longest
          tool = request.tool.slice(`mcp__${longest}__`.length)
        }
      }
      if (server === UNRESOLVED_MCP_SERVER) server = (runtime && serverForRuntime(entries, runtime)?.name) ?? 'unconfigured'
      const resolved = resolveServer(entries, server, runtime)
      store ??= new PinStore(host.home)
      const check = store.check(server, resolved.identity, request.source)
      if (check.firstSighting) host.log.warn({ server, fingerprint: check.fingerprint }, 'new MCP server queued for pinning')
      // A server whose tool list the proxy has seen is pinned tool by tool (whichever path the call came by).
      // Methods (`resources/read`, `prompts/get`: MCP tool names never hold a `/`) are pinned per server.
      const toolPin = tool.includes('/') ? undefined : toolPinState(store.get(server), tool)
      const facts: PinFacts = toolPin
        ? {
            server,
            state: toolPin.state,
            fingerprint: toolPin.fingerprint ?? '',
            ...(toolPin.pinnedFingerprint ? { pinned_fingerprint: toolPin.pinnedFingerprint } : {}),
            tool,
            why: toolPin.why,
          }
        : {
            server,
            state: check.state,
            fingerprint: check.fingerprint,
            ...(check.pinnedFingerprint ? { pinned_fingerprint: check.pinnedFingerprint } : {}),
            ...(check.rejected ? { rejected: true } : {}),
          }
      return { ...request, tool: mcpToolName(server, tool), mcp: { server, tool }, meta: { ...meta, [META_KEY]: facts } }
    })
  },
}

export default plugin

export type { TrafficEntry } from './traffic.ts'
