/**
 * Codex tool names onto the policy's tools: `Bash` stays, `apply_patch` becomes `Edit` (or `Write` when it
 * only adds files) with the touched paths, `spawn_agent` becomes `Agent`; MCP names are already `mcp__s__t`.
 */
import { patchTargets } from '../../core/index.ts'
import { absolutePath } from '../kit/index.ts'

function quoteWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

export function mapCodexTool(tool: string, input: Record<string, unknown>, cwd: string | undefined): { tool: string; input: Record<string, unknown> } {
  if (tool === 'apply_patch') {
    const patch =
      typeof input.command === 'string'
        ? input.command
        : typeof input.patch === 'string'
          ? input.patch
          : typeof input.input === 'string'
            ? input.input
            : Array.isArray(input.command)
              ? input.command.filter((a): a is string => typeof a === 'string').join('\n')
              : ''
    const targets = patchTargets(patch)
    const paths = targets.map((t) => absolutePath(t.path, cwd))
    const onlyAdds = targets.length > 0 && targets.every((t) => t.kind === 'Add')
    return {
      tool: onlyAdds ? 'Write' : 'Edit',
      input: { ...(paths[0] ? { file_path: paths[0] } : {}), file_paths: paths, patch },
    }
  }
  if (tool === 'spawn_agent') return { tool: 'Agent', input }
  // Older shell tools send argv arrays; gates match command text, so an array must not slip past them.
  if (Array.isArray(input.command)) {
    const argv = input.command.map(String)
    const viaShell = /^(ba|z|da)?sh$/.test(argv[0]?.split('/').pop() ?? '') && (argv[1] === '-lc' || argv[1] === '-c')
    const text = viaShell ? argv.slice(2).join(' ') : argv.map(quoteWord).join(' ')
    return { tool: tool === 'shell' || tool === 'local_shell' || tool === 'exec_command' ? 'Bash' : tool, input: { ...input, command: text } }
  }
  if (tool === 'shell' || tool === 'local_shell' || tool === 'exec_command') return { tool: 'Bash', input }
  return { tool, input }
}
