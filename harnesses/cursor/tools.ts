/**
 * Cursor tool names onto the policy's tools: `Shell` → `Bash`, `Read`/`Write` stay, `Edit`/`StrReplace`/
 * `MultiEdit` → `Edit`, `Task` → `Agent`, with path-like input keys as an absolute `file_path`.
 */
import { absolutePath } from '../kit/index.ts'

const RENAMES: Readonly<Record<string, string>> = {
  Shell: 'Bash',
  Terminal: 'Bash',
  Read: 'Read',
  Write: 'Write',
  Edit: 'Edit',
  StrReplace: 'Edit',
  MultiEdit: 'Edit',
  Delete: 'Delete',
  Grep: 'Grep',
  Task: 'Agent',
}

const PATH_KEYS = ['file_path', 'target_file', 'path', 'filePath'] as const

export function mapCursorTool(tool: string, input: Record<string, unknown>, cwd: string | undefined): { tool: string; input: Record<string, unknown> } {
  const renamed = RENAMES[tool] ?? tool
  const out: Record<string, unknown> = { ...input }
  for (const key of PATH_KEYS) {
    if (typeof input[key] === 'string' && input[key] !== '') {
      out.file_path = absolutePath(input[key], typeof input.working_directory === 'string' ? input.working_directory : cwd)
      break
    }
  }
  return { tool: renamed, input: out }
}
