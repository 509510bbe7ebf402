/**
 * Reads MCP server definitions out of harness config objects into identity-only entries: transport,
 * command, args, cwd, url and the NAMES of env vars and headers. Values of env and headers are never
 * copied, so secrets never reach a fingerprint, a pin file or a log.
 */
import { parse as parseJsonc } from 'jsonc-parser'
import { parse as parseToml } from 'smol-toml'
import { unwrapArgs } from '../../core/index.ts'
import type { McpServerEntry } from '../../harness-contract/index.ts'
import { asRecord } from './payload.ts'

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined
}

function names(...maps: unknown[]): string[] | undefined {
  const out = new Set<string>()
  for (const map of maps) {
    const r = asRecord(map)
    if (r) for (const key of Object.keys(r)) out.add(key)
    for (const name of strings(map) ?? []) out.add(name)
  }
  return out.size ? [...out].sort() : undefined
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** The command an entry runs: for an entry svc wrapped, the real server inside the wrapper (marked `wrapped`). */
export function stdioCommand(command: string | undefined, args: string[] | undefined): Pick<McpServerEntry, 'command' | 'args' | 'wrapped'> {
  const inner = unwrapArgs(args)
  if (inner) return { command: inner.command, args: [...inner.args], wrapped: true }
  return { command, args }
}

/** Entries of a JSON `mcpServers` map (Claude Code, Gemini CLI, Cursor shapes). */
export function serversFromJsonMap(map: unknown, harness: string, file: string): McpServerEntry[] {
  const servers = asRecord(map)
  if (!servers) return []
  const out: McpServerEntry[] = []
  for (const [name, raw] of Object.entries(servers)) {
    const s = asRecord(raw)
    if (!s) continue
    const url = str(s.url) ?? str(s.httpUrl) ?? str(s.serverUrl)
    const declared = str(s.type)
    const transport: McpServerEntry['transport'] = str(s.tcp) ? 'tcp' : url ? (declared === 'sse' ? 'sse' : 'http') : 'stdio'
    out.push(
      prune({
        name,
        harness,
        file,
        transport,
        ...stdioCommand(str(s.command), strings(s.args)),
        cwd: str(s.cwd),
        url,
        tcp: str(s.tcp),
        envNames: names(s.env),
        headerNames: names(s.headers),
      }),
    )
  }
  return out
}

/** Entries of Codex `[mcp_servers.<name>]` tables. */
export function serversFromCodexToml(text: string, file: string): McpServerEntry[] {
  const doc = parseToml(text) as Record<string, unknown>
  const servers = asRecord(doc.mcp_servers)
  if (!servers) return []
  const out: McpServerEntry[] = []
  for (const [name, raw] of Object.entries(servers)) {
    const s = asRecord(raw)
    if (!s) continue
    const url = str(s.url)
    const bearer = str(s.bearer_token_env_var)
    out.push(
      prune({
        name,
        harness: 'codex',
        file,
        transport: url ? 'http' : 'stdio',
        ...stdioCommand(str(s.command), strings(s.args)),
        cwd: str(s.cwd),
        url,
        envNames: names(s.env, s.env_vars),
        headerNames: names(s.http_headers, s.env_http_headers, bearer ? { Authorization: true } : undefined),
      }),
    )
  }
  return out
}

/** Parses JSONC text leniently (comments, trailing commas); undefined when it is not an object. */
export function readJsonc(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined
  return asRecord(parseJsonc(text, [], { allowTrailingComma: true, disallowComments: false }))
}

function prune(entry: McpServerEntry): McpServerEntry {
  return Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as unknown as McpServerEntry
}
