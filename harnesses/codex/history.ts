/**
 * Codex's own session logs: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`. Each `response_item` is what the
 * model said; its `function_call` (JSON `arguments`), `custom_tool_call` (`apply_patch` with the patch as `input`)
 * and `local_shell_call` items are tool calls. The shell tools are turned into what the PreToolUse hook receives
 * (`Bash` with a `command`); the working directory comes from the call's `workdir` or the turn's `cwd`.
 */
import { join } from 'node:path'
import type { HarnessEnv, HarnessHistory, HistoryCall, HistoryLocation } from '../../harness-contract/index.ts'
import { asRecord, HistoryCollector, jsonlLines, str } from '../kit/index.ts'

const SHELL_TEXT = new Set(['exec_command', 'shell_command'])

/** A function call's name and parsed arguments as the hook would carry them. */
function hookShape(name: string, args: Record<string, unknown>): { tool: string; input: Record<string, unknown> } {
  const text = str(args.cmd) ?? str(args.command)
  if (SHELL_TEXT.has(name) && text !== undefined) return { tool: 'Bash', input: { command: text } }
  return { tool: name, input: args }
}

export function codexHistory(codexHome: (env: HarnessEnv) => string): HarnessHistory {
  return {
    locations: (env): HistoryLocation[] => [{ dir: join(codexHome(env), 'sessions'), files: /(^|\/)rollout-[^/]*\.jsonl$/ }],
    read(text) {
      const out = new HistoryCollector()
      let cwd: string | undefined
      for (const entry of jsonlLines(text)) {
        if ('why' in entry) {
          out.unreadable(entry.line, entry.why)
          continue
        }
        const { record, line } = entry
        const payload = asRecord(record.payload)
        if (!payload) continue
        if (record.type === 'session_meta' || record.type === 'turn_context') cwd = str(payload.cwd) ?? cwd
        if (record.type !== 'response_item') continue
        const at = str(record.timestamp)
        const add = (id: string | undefined, tool: string, input: Record<string, unknown>, dir: string | undefined) => {
          const call: HistoryCall = { tool, input, line, ...((dir ?? cwd) ? { cwd: dir ?? cwd } : {}), ...(at ? { at } : {}) }
          out.add(id, call)
        }
        const id = str(payload.call_id) ?? str(payload.id)
        if (payload.type === 'function_call') {
          const name = str(payload.name)
          let args: Record<string, unknown> | undefined
          try {
            args = asRecord(JSON.parse(str(payload.arguments) ?? ''))
          } catch {
            args = undefined
          }
          if (!name || !args) {
            out.unreadable(line, name ? `the arguments of ${name} are not a JSON object` : 'a function_call without a name')
            continue
          }
          const shaped = hookShape(name, args)
          add(id, shaped.tool, shaped.input, str(args.workdir))
        } else if (payload.type === 'custom_tool_call') {
          const name = str(payload.name)
          if (!name) out.unreadable(line, 'a custom_tool_call without a name')
          else add(id, name, name === 'apply_patch' ? { patch: str(payload.input) ?? '' } : { input: payload.input }, undefined)
        } else if (payload.type === 'local_shell_call') {
          const action = asRecord(payload.action)
          if (!Array.isArray(action?.command)) out.unreadable(line, 'a local_shell_call without a command')
          else add(id, 'local_shell', { command: action.command }, str(action.working_directory))
        }
      }
      return out.result()
    },
  }
}
