/**
 * MCP server fingerprints: SHA-256 over RFC 8785 canonical JSON of the server's identity (transport,
 * command, args, cwd, url, tcp, and the NAMES of env vars and headers — never their values) plus, when
 * known, its tool list (the set hash). Each tool also has its own fingerprint, bound to the identity, over
 * the fields a model reads or a harness acts on: name, title, description, inputSchema, outputSchema and
 * annotations (MCP `Tool`, https://modelcontextprotocol.io/specification/2025-11-25/server/tools). Equal
 * identities give equal fingerprints whatever the key order or the harness the server was found in.
 */
import { canonicalSha256, unwrapArgs } from '../../core/index.ts'
import type { McpServerEntry } from '../../harness-contract/index.ts'

/** What identifies a server: a config entry without where it was found. */
export interface ServerIdentity extends Omit<McpServerEntry, 'name' | 'harness' | 'file' | 'transport'> {
  /** `unknown`: a server seen only by name (in no config, with no runtime facts). */
  readonly transport: McpServerEntry['transport'] | 'unknown'
}

/** What is pinned of a tool (anything else a server sends, e.g. `_meta` or `icons`, is not). */
export interface McpToolInfo {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema?: unknown
  readonly outputSchema?: unknown
  readonly annotations?: unknown
}

export const TOOL_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const

/** The pinned fields of a tool as a server sent it (absent fields stay absent, so older pins keep their hash). */
export function toolInfo(tool: Readonly<Record<string, unknown>>): McpToolInfo {
  const out: Record<string, unknown> = {}
  for (const field of TOOL_FIELDS) if (tool[field] !== undefined) out[field] = tool[field]
  return out as unknown as McpToolInfo
}

/** `sha256:<hex>` of one tool bound to its server's identity: the same tool on another server is another pin. */
export function toolFingerprint(identity: ServerIdentity, tool: McpToolInfo): string {
  return `sha256:${canonicalSha256({ identity: identityOf(identity), tool: toolInfo(tool as unknown as Record<string, unknown>) })}`
}

/** The pinned fields that differ between two versions of a tool (RFC 8785 comparison). */
export function toolDiff(before: McpToolInfo, after: McpToolInfo): string[] {
  const a = before as unknown as Record<string, unknown>
  const b = after as unknown as Record<string, unknown>
  return TOOL_FIELDS.filter((f) => canonicalSha256({ v: a[f] ?? null }) !== canonicalSha256({ v: b[f] ?? null }))
}

function normaliseUrl(url: string): string {
  try {
    return new URL(url).toString()
  } catch {
    return url
  }
}

/** The identity part of a config entry (drops where it was found). */
export function identityOf(entry: ServerIdentity): ServerIdentity {
  const out: Record<string, unknown> = { transport: entry.transport }
  if (entry.command !== undefined) out.command = entry.command
  if (entry.args?.length) out.args = [...entry.args]
  if (entry.cwd !== undefined) out.cwd = entry.cwd
  if (entry.url !== undefined) out.url = normaliseUrl(entry.url)
  if (entry.tcp !== undefined) out.tcp = entry.tcp
  if (entry.envNames?.length) out.envNames = [...new Set(entry.envNames)].sort()
  if (entry.headerNames?.length) out.headerNames = [...new Set(entry.headerNames.map((h) => h.toLowerCase()))].sort()
  return out as unknown as ServerIdentity
}

/** `sha256:<hex>` of the canonical identity and (sorted) tool list. */
export function fingerprint(identity: ServerIdentity, tools?: readonly McpToolInfo[]): string {
  const toolList = tools?.map((t) => toolInfo(t as unknown as Record<string, unknown>)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const doc = { identity: identityOf(identity), ...(toolList ? { tools: toolList } : {}) }
  return `sha256:${canonicalSha256(doc)}`
}

/** What a harness tells at call time about the server it is about to use (Gemini `mcp_context`, Cursor `url`/`command`). */
export interface RuntimeIdentity {
  readonly command?: string
  readonly args?: readonly string[]
  readonly cwd?: string
  readonly url?: string
  readonly tcp?: string
}

/** Reads a runtime identity out of a parsed `mcp_context`; undefined when it names nothing usable. */
export function runtimeIdentityOf(context: unknown): RuntimeIdentity | undefined {
  if (typeof context !== 'object' || context === null) return undefined
  const c = context as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of ['command', 'cwd', 'url', 'tcp'] as const) if (typeof c[key] === 'string' && c[key] !== '') out[key] = c[key]
  if (Array.isArray(c.args)) out.args = c.args.filter((a): a is string => typeof a === 'string')
  // A server started through `svc mcp-proxy` is the real server inside (args, or Cursor's whole command line).
  const line = typeof out.command === 'string' && out.args === undefined ? (out.command as string).split(' ') : undefined
  const inner = unwrapArgs((out.args as string[] | undefined) ?? line?.slice(1))
  if (inner) {
    out.command = inner.command
    out.args = [...inner.args]
  }
  return Object.keys(out).length ? (out as RuntimeIdentity) : undefined
}

/**
 * True when what the harness is about to start is the configured server. A runtime `command` may be the
 * program alone or the whole command line (Cursor), so both spellings are accepted.
 */
export function runtimeMatches(identity: ServerIdentity, runtime: RuntimeIdentity): boolean {
  if (runtime.url !== undefined && normaliseUrl(runtime.url) !== (identity.url === undefined ? undefined : normaliseUrl(identity.url))) return false
  if (runtime.tcp !== undefined && runtime.tcp !== identity.tcp) return false
  if (runtime.cwd !== undefined && identity.cwd !== undefined && runtime.cwd !== identity.cwd) return false
  if (runtime.command !== undefined) {
    const line = [identity.command ?? '', ...(identity.args ?? [])].join(' ')
    const sameProgram = runtime.command === identity.command
    if (!sameProgram && runtime.command !== line) return false
    if (sameProgram && runtime.args !== undefined && JSON.stringify(runtime.args) !== JSON.stringify(identity.args ?? [])) return false
  }
  return true
}

/** The identity implied by runtime facts alone (a server found in no config file). */
export function identityFromRuntime(runtime: RuntimeIdentity): ServerIdentity {
  const transport: ServerIdentity['transport'] = runtime.tcp ? 'tcp' : runtime.url ? 'http' : 'stdio'
  return identityOf({ transport, ...runtime })
}
