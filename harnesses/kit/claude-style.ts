/**
 * The Claude-style hook wire format, shared by the harnesses that speak it (Claude Code, Codex CLI; also
 * what Cursor sends to Claude hooks).
 */
import type { HookInput, HookPhase } from '../../harness-contract/index.ts'
import { asRecord, compact, objectField, optionalString, requireString, withFilePath } from './payload.ts'

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
