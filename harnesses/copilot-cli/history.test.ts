/** Copilot CLI's events.jsonl as `svc scan` reads it: a session the pinned binary wrote (trimmed to the events that matter, home renamed). */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import copilot from './index.ts'

const dir = new URL('./fixtures/history/session/', import.meta.url).pathname
const events = readFileSync(`${dir}events.jsonl`, 'utf8')
const history = copilot.harness.history!
const sibling = (path: string) => (path === `${dir}workspace.yaml` ? readFileSync(path, 'utf8') : undefined)

describe('Copilot CLI history', () => {
  it('looks in $COPILOT_HOME/session-state/<id>/events.jsonl', () => {
    const [loc] = history.locations({ home: '/home/dev', env: { COPILOT_HOME: '/elsewhere' } })
    expect(loc!.dir).toBe('/elsewhere/session-state')
    expect(loc!.files.test('0e437e07-b9f6-423f-a7d8-41d73185706b/events.jsonl')).toBe(true)
    expect(loc!.files.test('0e437e07-b9f6-423f-a7d8-41d73185706b/workspace.yaml')).toBe(false)
  })

  it('reads each tool.execution_start as the native call its preToolUse hook receives, with the session’s cwd', () => {
    const read = history.read(events, `${dir}events.jsonl`, sibling)
    expect(read.unreadable).toEqual([])
    expect(read.calls).toEqual([{ tool: 'bash', input: { command: 'ls -la', description: 'scripted' }, cwd: '/home/dev/work', at: '2026-11-27T14:40:40.509Z', line: 2 }])
  })

  it('takes the cwd from workspace.yaml without a session.start, and reports what it cannot read', () => {
    const text = `${events.split('\n').slice(1).join('\n')}{"type":"tool.execution_start","data":{"toolCallId":"c9"}}\n{"type":"tool.exec\n`
    const read = history.read(text, `${dir}events.jsonl`, sibling)
    expect(read.calls[0]).toMatchObject({ cwd: '/home/dev/work' })
    expect(read.unreadable).toEqual([
      { line: 5, why: 'a tool call without a tool name' },
      { line: 6, why: 'not valid JSON (a truncated or corrupt line)' },
    ])
  })

  it('replays through its own hook payload shape (nativeCall → parse)', () => {
    const native = copilot.harness.nativeCall!('bash', { command: 'ls' }, '/w')
    expect(copilot.harness.parse(native.event, native.payload)).toMatchObject({ kind: 'call', call: { tool: 'Bash', input: { command: 'ls' }, cwd: '/w' } })
  })
})
