/**
 * Claude Code's own transcripts: one JSONL file per session under `<config dir>/projects/<project>/` (subagents'
 * beside it). An assistant record's `message.content` holds `tool_use` blocks whose `name` and `input` are what
 * the PreToolUse hook receives as `tool_name` and `tool_input`; the record carries its `cwd`.
 */
import { join } from 'node:path'
import type { HarnessEnv, HarnessHistory, HistoryLocation } from '../../harness-contract/index.ts'
import { asRecord, HistoryCollector, jsonlLines, str } from '../kit/index.ts'

export function claudeHistory(configDir: (env: HarnessEnv) => string): HarnessHistory {
  return {
    locations: (env): HistoryLocation[] => [{ dir: join(configDir(env), 'projects'), files: /\.jsonl$/ }],
    read(text) {
      const out = new HistoryCollector()
      for (const entry of jsonlLines(text)) {
        if ('why' in entry) {
          out.unreadable(entry.line, entry.why)
          continue
        }
        const { record, line } = entry
        const message = asRecord(record.message)
        if (record.type !== 'assistant' || !Array.isArray(message?.content)) continue
        for (const block of message.content) {
          const b = asRecord(block)
          if (b?.type !== 'tool_use') continue
          const input = asRecord(b.input)
          const tool = str(b.name)
          if (!tool || !input) {
            out.unreadable(line, `a tool_use block without ${tool ? 'an input object' : 'a tool name'}`)
            continue
          }
          out.add(str(b.id), { tool, input, line, ...(str(record.cwd) ? { cwd: str(record.cwd) } : {}), ...(str(record.timestamp) ? { at: str(record.timestamp) } : {}) })
        }
      }
      return out.result()
    },
  }
}
