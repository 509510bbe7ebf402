/**
 * Gemini CLI tool names onto the policy's tools, so one gate covers the same action in every harness:
 * `run_shell_command` → `Bash`, `read_file`/`read_many_files` → `Read`, `write_file` → `Write`,
 * `replace` → `Edit` (all with an absolute `file_path`), MCP `mcp_<server>_<tool>` → `mcp__<server>__<tool>`.
 */
import { mcpToolName } from '../../core/index.ts'
import { absolutePath } from '../kit/index.ts'

const RENAMES: Readonly<Record<string, string>> = {
  run_shell_command: 'Bash',
  read_file: 'Read',
  read_many_files: 'Read',
  write_file: 'Write',
  replace: 'Edit',
  glob: 'Glob',
  grep_search: 'Grep',
  search_file_content: 'Grep',
  list_directory: 'LS',
  web_fetch: 'WebFetch',
  google_web_search: 'WebSearch',
  write_todos: 'TodoWrite',
}

const PATH_KEYS = ['file_path', 'absolute_path', 'path'] as const

export interface McpContext {
  readonly server_name?: unknown
  readonly tool_name?: unknown
}

/** Splits `mcp_<server>_<tool>` on the first `_` after `mcp_` (Gemini's own rule; ambiguous for `_` in server names). */
export function splitGeminiMcpName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith('mcp_')) return undefined
  const rest = name.slice(4)
  const cut = rest.indexOf('_')
  if (cut <= 0 || cut === rest.length - 1) return undefined
  return { server: rest.slice(0, cut), tool: rest.slice(cut + 1) }
}

export function mapGeminiTool(
  tool: string,
  input: Record<string, unknown>,
  cwd: string | undefined,
  mcp: McpContext | undefined,
): { tool: string; input: Record<string, unknown> } {
  if (mcp && typeof mcp.server_name === 'string' && typeof mcp.tool_name === 'string') {
    return { tool: mcpToolName(mcp.server_name, mcp.tool_name), input }
  }
  const split = splitGeminiMcpName(tool)
  if (split) return { tool: mcpToolName(split.server, split.tool), input }
  const renamed = RENAMES[tool]
  if (!renamed) return { tool, input }
  const out: Record<string, unknown> = { ...input }
  for (const key of PATH_KEYS) {
    if (typeof input[key] === 'string' && input[key] !== '') {
      out.file_path = absolutePath(input[key], cwd)
      break
    }
  }
  if (tool === 'read_many_files' && Array.isArray(input.paths)) {
    const paths = input.paths.filter((p): p is string => typeof p === 'string').map((p) => absolutePath(p, cwd))
    out.file_paths = paths
    if (paths[0]) out.file_path = paths[0]
  }
  if (tool === 'replace') {
    if (typeof input.old_string === 'string') out.old_string = input.old_string
    if (typeof input.new_string === 'string') out.new_string = input.new_string
  }
  return { tool: renamed, input: out }
}
