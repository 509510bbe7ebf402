/**
 * Small pure helpers shared by harness plugins: reading untyped payload fields, making paths absolute,
 * spelling MCP tool names, and building the shim command line every command hook runs.
 */
import { isAbsolute, resolve } from 'node:path'
import { HookPayloadError } from './harness.ts'
import type { HookInput, HookPhase, InstallContext } from './harness.ts'

/** The marker argument every installed command carries: `--svc-install=<id>`. */
export const INSTALL_MARKER = '--svc-install='

/** Header that carries the marker on native HTTP hooks. */
export const INSTALL_HEADER = 'X-Svc-Install'

/** A plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

/** A string field, or undefined when absent; throws when present with another type. */
export function optionalString(payload: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = payload[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new HookPayloadError(`field "${key}" must be a string, got ${typeof value}`)
  return value
}

/** A required non-empty string field. */
export function requireString(payload: Readonly<Record<string, unknown>>, key: string): string {
  const value = optionalString(payload, key)
  if (value === undefined || value === '') throw new HookPayloadError(`field "${key}" is required`)
  return value
}

/** An object field (`tool_input`); a JSON string holding an object is accepted (Cursor sends some as strings). */
export function objectField(payload: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> {
  const value = payload[key]
  if (value === undefined || value === null) return {}
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value)
      const record = asRecord(parsed)
      if (record) return record
    } catch {
      // fall through to the error below
    }
    throw new HookPayloadError(`field "${key}" must be an object or a JSON string holding one`)
  }
  const record = asRecord(value)
  if (!record) throw new HookPayloadError(`field "${key}" must be an object`)
  return record
}

/** Makes `path` absolute against `cwd` (harnesses may send relative paths). */
export function absolutePath(path: string, cwd: string | undefined): string {
  if (isAbsolute(path) || !cwd) return path
  return resolve(cwd, path)
}

/**
 * The server name a harness puts in an MCP tool name when its payload does not say which server it is
 * (Cursor's beforeMCPExecution gives only url/command): the MCP pin plugin resolves it from the configs.
 */
export const UNRESOLVED_MCP_SERVER = '?'

/** The canonical MCP tool name every gate matches: `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`
}

/** Copies `input` and renames/absolutises a path-like key to `file_path`. */
export function withFilePath(input: Record<string, unknown>, keys: readonly string[], cwd: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input }
  for (const key of keys) {
    const value = input[key]
    if (typeof value === 'string' && value !== '') {
      out.file_path = absolutePath(value, cwd)
      return out
    }
  }
  return out
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/**
 * The command line of an installed command hook. `observe` marks post-tool events: the shim never
 * blocks those when the daemon is down (the tool already ran).
 */
export function shimCommand(ctx: InstallContext, harness: string, event: string, observe: boolean): string {
  const words = [ctx.shimPath, harness, event, `--url=${ctx.daemonUrl}`, `${INSTALL_MARKER}${ctx.installId}`]
  if (observe) words.push('--observe')
  if (ctx.failOpen) words.push('--fail-open')
  return words.map(shellQuote).join(' ')
}

/** True when a command string carries our marker for this install id. */
export function commandIsOurs(command: unknown, installId: string): boolean {
  if (typeof command !== 'string') return false
  return command.split(/\s+/).some((word) => word === `${INSTALL_MARKER}${installId}` || word === `'${INSTALL_MARKER}${installId}'`)
}

/** True when a Claude/Codex/Gemini-style matcher group `{hooks: [...]}` holds one of our handlers. */
export function groupIsOurs(group: unknown, installId: string): boolean {
  const hooks = asRecord(group)?.hooks
  if (!Array.isArray(hooks)) return false
  return hooks.some((handler) => {
    const h = asRecord(handler)
    if (!h) return false
    if (commandIsOurs(h.command, installId)) return true
    const headers = asRecord(h.headers)
    return headers?.[INSTALL_HEADER] === installId
  })
}

/** Maps a native tool name and input onto the policy's tool vocabulary. */
export type ToolMapper = (tool: string, input: Record<string, unknown>, cwd: string | undefined) => { tool: string; input: Record<string, unknown> }

const PATH_KEYS = ['file_path', 'path', 'notebook_path'] as const

/**
 * Parses the Claude-style wire format (Claude Code, Codex CLI; also what Cursor sends to Claude hooks):
 * `tool_name`, `tool_input`, `tool_use_id`, `cwd`, `session_id`. Bodies that carry Cursor's
 * `cursor_version`/`conversation_id` are attributed to `cursor` so duplicate deliveries are recognised.
 */
export function parseClaudeStyle(
  harness: string,
  events: Readonly<Record<string, HookPhase>>,
  event: string,
  payload: Readonly<Record<string, unknown>>,
  mapTool: ToolMapper,
): HookInput {
  const phase = events[event]
  if (!phase) return { kind: 'ignore', why: `event ${event} is not gated` }
  const nativeTool = requireString(payload, 'tool_name')
  const cwd = optionalString(payload, 'cwd')
  const rawInput = objectField(payload, 'tool_input')
  const mapped = mapTool(nativeTool, rawInput, cwd)
  const input = PATH_KEYS.some((k) => typeof mapped.input[k] === 'string') ? withFilePath(mapped.input, PATH_KEYS, cwd) : mapped.input
  const fromCursor = payload.cursor_version !== undefined || payload.conversation_id !== undefined
  const toolUseId = optionalString(payload, 'tool_use_id')
  const call = {
    source: fromCursor ? 'cursor' : harness,
    tool: mapped.tool,
    input,
    ...(cwd ? { cwd } : {}),
    ...(toolUseId ? { toolUseId } : {}),
    meta: compact({
      harness_session_id: optionalString(payload, 'session_id') ?? optionalString(payload, 'conversation_id'),
      native_tool: nativeTool !== mapped.tool ? nativeTool : undefined,
      permission_mode: optionalString(payload, 'permission_mode'),
      via: fromCursor ? `${harness}-hook` : undefined,
    }),
  }
  if (phase === 'pre') return { kind: 'call', call }
  const failed = phase === 'post_error' || asRecord(payload.tool_response)?.is_error === true
  return { kind: 'outcome', outcome: failed ? 'tool_errored' : 'ran', call }
}

/** Drops undefined values (keeps ledger meta small and stable). */
export function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))
}
