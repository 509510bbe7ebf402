/**
 * OpenCode tool names onto the policy's tools (its built-in tool ids and argument names): `bash` → `Bash`
 * (`workdir` is where it runs), `read`/`write`/`edit`/`multiedit` → `Read`/`Write`/`Edit` with `filePath` as an
 * absolute `file_path` and `oldString`/`newString` as `old_string`/`new_string`, `apply_patch`/`patch` → `Edit`
 * (or `Write` when it only adds files) with every patched path. MCP tools are `<server>_<tool>`; the plugin,
 * which knows the configured servers, names the server (`mcp_server`, `mcp_tool`).
 */
import { mcpToolName, patchTargets } from '../../core/index.ts'
import { absolutePath } from '../kit/index.ts'

const RENAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  read: 'Read',
  write: 'Write',
  edit: 'Edit',
  multiedit: 'Edit',
  glob: 'Glob',
  grep: 'Grep',
  list: 'LS',
  webfetch: 'WebFetch',
  websearch: 'WebSearch',
  task: 'Agent',
  todowrite: 'TodoWrite',
}

export function mapOpencodeTool(
  tool: string,
  input: Record<string, unknown>,
  cwd: string | undefined,
  mcp: { server?: string; tool?: string },
): { tool: string; input: Record<string, unknown> } {
  if (mcp.server && mcp.tool) return { tool: mcpToolName(mcp.server, mcp.tool), input }
  if (tool === 'apply_patch' || tool === 'patch') {
    const patch = typeof input.patchText === 'string' ? input.patchText : typeof input.patch === 'string' ? input.patch : ''
    const targets = patchTargets(patch)
    const paths = targets.map((t) => absolutePath(t.path, cwd))
    return {
      tool: targets.length > 0 && targets.every((t) => t.kind === 'Add') ? 'Write' : 'Edit',
      input: { ...(paths[0] ? { file_path: paths[0] } : {}), file_paths: paths, patch },
    }
  }
  const renamed = RENAMES[tool]
  if (!renamed) return { tool, input }
  const out: Record<string, unknown> = { ...input }
  const path = input.filePath ?? input.path
  if (typeof path === 'string' && path !== '' && tool !== 'glob' && tool !== 'grep') out.file_path = absolutePath(path, cwd)
  if (typeof input.oldString === 'string') out.old_string = input.oldString
  if (typeof input.newString === 'string') out.new_string = input.newString
  return { tool: renamed, input: out }
}
