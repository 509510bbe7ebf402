/**
 * OpenCode's sessions as `svc scan` reads them: a SQLite database with the tables and rows the pinned 1.18.33 wrote
 * (the columns the reader uses; `data` as captured, home renamed). The real binary's own database is read in
 * test/scan.e2e.test.ts.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import opencode from './index.ts'

const history = opencode.harness.history!
const SESSION = 'ses_de2975f56ffemUrduIDqlTLDKP'
const ASSISTANT = JSON.stringify({ role: 'assistant', path: { cwd: '/home/dev/work', root: '/' }, finish: 'tool-calls' })
const TOOL = (callID: string, command: string) =>
  JSON.stringify({ type: 'tool', tool: 'bash', callID, state: { status: 'completed', input: { command, description: 'scripted' }, output: '' } })

function database(parts: readonly [string, string, number, string][]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-oc-history-')), 'opencode.db')
  const db = new DatabaseSync(path)
  db.exec(`CREATE TABLE session (id text PRIMARY KEY, directory text NOT NULL);
    CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, data text NOT NULL);
    CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, data text NOT NULL);`)
  db.prepare('INSERT INTO session VALUES (?, ?)').run(SESSION, '/home/dev/session-dir')
  db.prepare('INSERT INTO message VALUES (?, ?, ?, ?)').run('msg_a', SESSION, 1795789737472, ASSISTANT)
  for (const [id, message, time, data] of parts) db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?)').run(id, message, SESSION, time, data)
  db.close()
  return path
}

describe('OpenCode history', () => {
  it('looks for opencode.db (or a channel’s opencode-<channel>.db) in $XDG_DATA_HOME/opencode', () => {
    const [loc] = history.locations({ home: '/home/dev', env: { XDG_DATA_HOME: '/data' } })
    expect(loc!.dir).toBe('/data/opencode')
    expect(['opencode.db', 'opencode-beta.db', 'opencode.db-wal', 'storage/part/x.json'].map((f) => loc!.files.test(f))).toEqual([true, true, false, false])
    expect(history.locations({ home: '/home/dev', env: {} })[0]!.dir).toBe('/home/dev/.local/share/opencode')
  })

  it('reads each tool part as the native call the plugin hands the shim, with the message’s cwd (else the session’s)', () => {
    const path = database([
      ['prt_1', 'msg_a', 1795789726905, JSON.stringify({ type: 'text', text: 'RUN: cat ~/.ssh/id_rsa' })],
      ['prt_2', 'msg_a', 1795789755940, TOOL('call_1', 'cat ~/.ssh/id_rsa')],
      ['prt_3', 'msg_gone', 1795789761185, TOOL('call_2', 'ls')],
      ['prt_4', 'msg_a', 1795789761190, '{"type":"tool","callID":"c"}'],
      ['prt_5', 'msg_a', 1795789761191, 'not json'],
    ])
    const read = history.readFile!(path)
    expect(read.calls).toEqual([
      { tool: 'bash', input: { command: 'cat ~/.ssh/id_rsa', description: 'scripted' }, cwd: '/home/dev/work', at: new Date(1795789755940).toISOString(), line: 2 },
      { tool: 'bash', input: { command: 'ls', description: 'scripted' }, cwd: '/home/dev/session-dir', at: new Date(1795789761185).toISOString(), line: 3 },
    ])
    expect(read.unreadable).toEqual([
      { line: 4, why: 'a tool part without a tool name' },
      { line: 5, why: 'a part whose data is not a JSON object' },
    ])
  })

  it('replays through its own plugin payload shape (nativeCall → parse)', () => {
    const native = opencode.harness.nativeCall!('read', { filePath: 'src/a.ts' }, '/w')
    expect(opencode.harness.parse(native.event, native.payload)).toMatchObject({ kind: 'call', call: { tool: 'Read', input: { file_path: '/w/src/a.ts' }, cwd: '/w' } })
  })
})
