/**
 * Copilot CLI tool names onto the policy's tools (names as its `preToolUse` payloads carry them, captured from
 * the pinned binary): `bash`/`powershell` → `Bash`, `view` → `Read`, `create` → `Write`, `edit`/`str_replace`
 * → `Edit` (its `path` as an absolute `file_path`, `old_str`/`new_str` as `old_string`/`new_string`),
 * `apply_patch` → `Edit` (or `Write` when it only adds files) with every patched path. MCP tools arrive as
 * `<server>-<tool>` (built-in names never hold a dash) and become `mcp__<server>__<tool>`.
 */
import { mcpToolName, patchTargets } from '../../core/index.ts'
import { absolutePath } from '../kit/index.ts'

const RENAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  powershell: 'Bash',
  view: 'Read',
  create: 'Write',
  edit: 'Edit',
  str_replace: 'Edit',
  str_replace_editor: 'Edit',
  glob: 'Glob',
  grep: 'Grep',
  rg: 'Grep',
  web_fetch: 'WebFetch',
  task: 'Agent',
}

/** Splits `<server>-<tool>` on the first dash (Copilot's own joining; ambiguous for a dash in a server name). */
export function splitCopilotMcpName(name: string): { server: string; tool: string } | undefined {
  const cut = name.indexOf('-')
  if (cut <= 0 || cut === name.length - 1) return undefined
  return { server: name.slice(0, cut), tool: name.slice(cut + 1) }
}

export function mapCopilotTool(tool: string, input: Record<string, unknown>, cwd: string | undefined): { tool: string; input: Record<string, unknown> } {
  if (tool === 'apply_patch') {
    const patch = typeof input.input === 'string' ? input.input : typeof input.patch === 'string' ? input.patch : ''
    const targets = patchTargets(patch)
    const paths = targets.map((t) => absolutePath(t.path, cwd))
    return {
      tool: targets.length > 0 && targets.every((t) => t.kind === 'Add') ? 'Write' : 'Edit',
      input: { ...(paths[0] ? { file_path: paths[0] } : {}), file_paths: paths, patch },
    }
  }
  const split = splitCopilotMcpName(tool)
  if (split) return { tool: mcpToolName(split.server, split.tool), input }
  const renamed = RENAMES[tool]
  if (!renamed) return { tool, input }
  const out: Record<string, unknown> = { ...input }
  const path = input.path ?? input.file_path
  if (typeof path === 'string' && path !== '') out.file_path = absolutePath(path, cwd)
  if (typeof input.old_str === 'string') out.old_string = input.old_str
  if (typeof input.new_str === 'string') out.new_string = input.new_str
  if (tool === 'create' && typeof input.file_text === 'string') out.content = input.file_text
  return { tool: renamed, input: out }
}
