/**
 * Copilot CLI's own sessions, for `svc scan`: `$COPILOT_HOME/session-state/<session id>/events.jsonl` (`~/.copilot`
 * by default), one event per line, appended as the session runs (a resumed session appends to the same file). A
 * `tool.execution_start` event's `data` holds the `toolCallId`, `toolName` and `arguments` its preToolUse hook
 * receives as `toolName` and `toolArgs`. The working directory is the `session.start` event's `data.context.cwd`,
 * else the `cwd:` line of `workspace.yaml` beside the file.
 */
import { dirname, join } from 'node:path'
import type { HarnessEnv, HarnessHistory, HistoryLocation } from '../../harness-contract/index.ts'
import { asRecord, HistoryCollector, jsonlLines, str } from '../kit/index.ts'

/** The `cwd:` of a session's workspace.yaml (a flat YAML map; a quoted value is unquoted). */
function workspaceCwd(yaml: string | undefined): string | undefined {
  const raw = /^cwd:[ \t]*(.+?)[ \t]*$/m.exec(yaml ?? '')?.[1]
  if (!raw) return undefined
  if (raw.startsWith('"')) {
    try {
      return JSON.parse(raw) as string
    } catch {
      return undefined
    }
  }
  return raw.startsWith("'") ? raw.slice(1, -1).replaceAll("''", "'") : raw
}

export function copilotHistory(copilotHome: (env: HarnessEnv) => string): HarnessHistory {
  return {
    locations: (env): HistoryLocation[] => [{ dir: join(copilotHome(env), 'session-state'), files: /^[^/]+\/events\.jsonl$/ }],
    read(text, path, readSibling) {
      const out = new HistoryCollector()
      let cwd = workspaceCwd(readSibling(join(dirname(path), 'workspace.yaml')))
      for (const entry of jsonlLines(text)) {
        if ('why' in entry) {
          out.unreadable(entry.line, entry.why)
          continue
        }
        const { record, line } = entry
        const data = asRecord(record.data)
        if (record.type === 'session.start') cwd = str(asRecord(data?.context)?.cwd) ?? cwd
        if (record.type !== 'tool.execution_start') continue
        const tool = str(data?.toolName)
        // Older builds wrote the arguments as a JSON string, as they once sent toolArgs.
        const raw = data?.arguments
        let input = asRecord(raw)
        if (!input && typeof raw === 'string') {
          try {
            input = asRecord(JSON.parse(raw))
          } catch {}
        }
        if (!tool || !input) {
          out.unreadable(line, `a tool call without ${tool ? 'an arguments object' : 'a tool name'}`)
          continue
        }
        const at = str(record.timestamp)
        out.add(str(data?.toolCallId), { tool, input, line, ...(cwd ? { cwd } : {}), ...(at ? { at } : {}) })
      }
      return out.result()
    },
  }
}
