/**
 * Gemini CLI's own chats: `~/.gemini/tmp/<project>/chats/session-*.jsonl` (one record per message, rewritten as
 * it grows; `$set` records carry bulk updates) and the older `session-*.json` (one object with `messages`). A
 * `gemini` message's `toolCalls` hold the native `name` and `args` the BeforeTool hook receives; the project's
 * directory is in `.project_root` beside `chats/`.
 */
import { dirname, join } from 'node:path'
import type { HarnessEnv, HarnessHistory, HistoryLocation } from '../../harness-contract/index.ts'
import { asRecord, HistoryCollector, jsonlLines, str } from '../kit/index.ts'

function addMessage(out: HistoryCollector, message: Record<string, unknown>, line: number, cwd: string | undefined): void {
  if (message.type !== 'gemini' || !Array.isArray(message.toolCalls)) return
  for (const raw of message.toolCalls) {
    const call = asRecord(raw)
    const tool = str(call?.name)
    const input = asRecord(call?.args)
    if (!tool || !input) {
      out.unreadable(line, `a tool call without ${tool ? 'an args object' : 'a name'}`)
      continue
    }
    const at = str(call?.timestamp) ?? str(message.timestamp)
    out.add(str(call?.id), { tool, input, line, ...(cwd ? { cwd } : {}), ...(at ? { at } : {}) })
  }
}

export function geminiHistory(geminiHome: (env: HarnessEnv) => string): HarnessHistory {
  return {
    locations: (env): HistoryLocation[] => [{ dir: join(geminiHome(env), '.gemini', 'tmp'), files: /^[^/]+\/chats\/session-[^/]*\.jsonl?$/ }],
    read(text, path, readSibling) {
      const out = new HistoryCollector()
      const cwd = readSibling(join(dirname(dirname(path)), '.project_root'))?.trim() || undefined
      if (path.endsWith('.json')) {
        let messages: unknown
        try {
          messages = asRecord(JSON.parse(text))?.messages
        } catch {
          out.unreadable(1, 'not valid JSON')
        }
        if (Array.isArray(messages))
          messages.forEach((m, i) => {
            addMessage(out, asRecord(m) ?? {}, i + 1, cwd)
          })
        return out.result()
      }
      for (const entry of jsonlLines(text)) {
        if ('why' in entry) out.unreadable(entry.line, entry.why)
        else {
          const bulk = asRecord(entry.record.$set)?.messages
          for (const m of Array.isArray(bulk) ? bulk : [entry.record]) addMessage(out, asRecord(m) ?? {}, entry.line, cwd)
        }
      }
      return out.result()
    },
  }
}
