/**
 * OpenCode's own sessions, for `svc scan`. The pinned 1.18 keeps them in SQLite: `opencode.db` in its data
 * directory (`$XDG_DATA_HOME/opencode`, `~/.local/share/opencode` by default; `opencode-<channel>.db` for a
 * non-release channel), having migrated the JSON files of older versions (`storage/`) into it on first start. A
 * `part` row whose `data` is `{type: "tool", tool, callID, state: {input}}` is one tool call with the native name
 * and arguments the plugin hands the shim; the assistant message's `path.cwd` (else the session's `directory`) is
 * where it ran. The database is opened read-only; OpenCode may be writing it.
 */
import { DatabaseSync } from 'node:sqlite'
import type { HarnessEnv, HarnessHistory, HistoryLocation } from '../../harness-contract/index.ts'
import { asRecord, HistoryCollector, str } from '../kit/index.ts'

interface PartRow {
  readonly session: string
  readonly part: string
  readonly created: number
  readonly message: string | null
  readonly directory: string | null
}

const PARTS = `SELECT p.session_id AS session, p.data AS part, p.time_created AS created, m.data AS message, s.directory AS directory
  FROM part p LEFT JOIN message m ON m.id = p.message_id LEFT JOIN session s ON s.id = p.session_id
  ORDER BY p.time_created, p.id`

function json(text: string | null): Record<string, unknown> | undefined {
  try {
    return text === null ? undefined : asRecord(JSON.parse(text))
  } catch {
    return undefined
  }
}

export function opencodeHistory(dataDir: (env: HarnessEnv) => string): HarnessHistory {
  return {
    locations: (env): HistoryLocation[] => [{ dir: dataDir(env), files: /^opencode(-[A-Za-z0-9._-]+)?\.db$/ }],
    read() {
      throw new Error('OpenCode keeps its sessions in a SQLite database, read with readFile')
    },
    readFile(path) {
      const out = new HistoryCollector()
      const db = new DatabaseSync(path, { readOnly: true })
      try {
        const rows = db.prepare(PARTS).all() as unknown as PartRow[]
        for (const [i, row] of rows.entries()) {
          const part = json(row.part)
          if (!part) {
            out.unreadable(i + 1, 'a part whose data is not a JSON object')
            continue
          }
          if (part.type !== 'tool') continue
          const tool = str(part.tool)
          const input = asRecord(asRecord(part.state)?.input)
          if (!tool || !input) {
            out.unreadable(i + 1, `a tool part without ${tool ? 'an input object' : 'a tool name'}`)
            continue
          }
          const cwd = str(asRecord(json(row.message)?.path)?.cwd) ?? row.directory ?? undefined
          const at = Number.isFinite(row.created) ? new Date(row.created).toISOString() : undefined
          // Call ids are the model's: unique within a session only.
          const id = str(part.callID)
          out.add(id && `${row.session}/${id}`, { tool, input, line: i + 1, ...(cwd ? { cwd } : {}), ...(at ? { at } : {}) })
        }
      } finally {
        db.close()
      }
      return out.result()
    },
  }
}
