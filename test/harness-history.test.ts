/**
 * Each harness's `history` reader over a transcript its real binary wrote (trimmed captures in
 * `harnesses/<id>/fixtures/history/`, made by the scripted-model runs test/scan.e2e.test.ts repeats): the tool
 * call comes out as the pre-tool hook would have received it, with its working directory; rewritten records
 * count once; corrupt lines are reported with their line number; the locations follow the config variables.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import claude from '../harnesses/claude-code/index.ts'
import codex from '../harnesses/codex/index.ts'
import gemini from '../harnesses/gemini/index.ts'
import { harnessPlugins } from '../harnesses/index.ts'

const FIX = join(import.meta.dirname, '../harnesses')
const none = () => undefined
const read = (h: typeof claude, file: string, sibling: (p: string) => string | undefined = none) => h.harness.history!.read(readFileSync(file, 'utf8'), file, sibling)

describe('harness transcripts', () => {
  it('Claude Code: the Bash tool_use with its cwd and time', () => {
    const r = read(claude, join(FIX, 'claude-code/fixtures/history/session.jsonl'))
    expect(r.unreadable).toEqual([])
    expect(r.calls).toHaveLength(1)
    expect(r.calls[0]).toMatchObject({ tool: 'Bash', input: { command: 'cat ~/.ssh/id_rsa' }, cwd: '/tmp/daily/home/work' })
    expect(r.calls[0]!.at).toMatch(/^2026-/)
  })

  it('Codex: exec_command becomes the hook’s Bash call; the turn’s cwd applies', () => {
    const r = read(codex, join(FIX, 'codex/fixtures/history/rollout-2026-11-27T11-14-01-01a21cb6.jsonl'))
    expect(r.unreadable).toEqual([])
    expect(r.calls).toEqual([expect.objectContaining({ tool: 'Bash', input: { command: 'cat ~/.ssh/id_rsa' }, cwd: '/tmp/daily/home/work' })])
  })

  it('Codex: apply_patch, local shell calls, a workdir and arguments that are not JSON', () => {
    const lines = [
      { type: 'turn_context', payload: { cwd: '/w' } },
      { type: 'response_item', payload: { type: 'custom_tool_call', name: 'apply_patch', call_id: 'a', input: '*** Begin Patch\n*** Add File: x.txt\n+hi\n*** End Patch' } },
      { type: 'response_item', payload: { type: 'local_shell_call', call_id: 'b', action: { type: 'exec', command: ['bash', '-lc', 'ls'], working_directory: '/w/sub' } } },
      { type: 'response_item', payload: { type: 'function_call', name: 'exec_command', call_id: 'c', arguments: '{"cmd":"pwd","workdir":"/elsewhere"}' } },
      { type: 'response_item', payload: { type: 'function_call', name: 'exec_command', call_id: 'd', arguments: '{"cmd":' } },
    ]
    const r = codex.harness.history!.read(lines.map((l) => JSON.stringify(l)).join('\n'), 'rollout-x.jsonl', none)
    expect(r.calls.map((c) => [c.tool, c.cwd])).toEqual([
      ['apply_patch', '/w'],
      ['local_shell', '/w/sub'],
      ['Bash', '/elsewhere'],
    ])
    expect(r.unreadable).toEqual([{ line: 5, why: 'the arguments of exec_command are not a JSON object' }])
  })

  it('Gemini: the native call once (its record is rewritten), the project root as cwd, a cut-off line reported', () => {
    const file = join(FIX, 'gemini/fixtures/history/work/chats/session-2026-11-27T11-14-60515a65.jsonl')
    const sibling = (p: string) => (p === join(FIX, 'gemini/fixtures/history/work/.project_root') ? '/tmp/daily/home/work\n' : undefined)
    const r = read(gemini, file, sibling)
    expect(r.calls).toEqual([expect.objectContaining({ tool: 'run_shell_command', input: { command: 'cat ~/.ssh/id_rsa' }, cwd: '/tmp/daily/home/work' })])
    const cut = gemini.harness.history!.read(`${readFileSync(file, 'utf8')}{"id":"x","type":"gem\n`, file, sibling)
    expect(cut.unreadable).toEqual([{ line: readFileSync(file, 'utf8').split('\n').length, why: 'not valid JSON (a truncated or corrupt line)' }])
  })

  it('Gemini: the older one-object chat file', () => {
    const text = JSON.stringify({ messages: [{ type: 'gemini', toolCalls: [{ id: '1', name: 'read_file', args: { absolute_path: '/x' } }] }] })
    expect(gemini.harness.history!.read(text, '/g/tmp/p/chats/session-1.json', none).calls).toEqual([expect.objectContaining({ tool: 'read_file', line: 1 })])
  })

  it('locations follow the variables that move each harness’s home', () => {
    const env = { home: '/h', env: { CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '/x', GEMINI_CLI_HOME: '/g' } }
    const dirs = harnessPlugins.flatMap((p) => (p.harness.history?.locations(env) ?? []).map((l) => [p.harness.id, l.dir]))
    expect(dirs).toEqual(
      expect.arrayContaining([
        ['claude-code', '/c/projects'],
        ['codex', '/x/sessions'],
        ['gemini', '/g/.gemini/tmp'],
      ]),
    )
    const gem = gemini.harness.history!.locations(env)[0]!
    expect(gem.files.test('proj/chats/session-1.jsonl')).toBe(true)
    expect(gem.files.test('proj/logs.json')).toBe(false)
  })
})
