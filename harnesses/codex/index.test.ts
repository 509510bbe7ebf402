import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import codex from './index.ts'

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'))
const h = codex.harness

describe('codex parse', () => {
  it('parses the documented PreToolUse payload', () => {
    expect(h.parse('PreToolUse', fixture('pre-tool-use'))).toEqual({
      kind: 'call',
      call: {
        source: 'codex',
        tool: 'Bash',
        input: { command: 'rm -rf ~/.ssh' },
        cwd: '/home/u/app',
        toolUseId: 'call_9',
        meta: { harness_session_id: '0199', permission_mode: 'default' },
      },
    })
  })
  it('maps apply_patch onto Edit with every touched path made absolute', () => {
    const parsed = h.parse('PreToolUse', fixture('pre-tool-use.apply-patch'))
    expect(parsed.kind === 'call' && parsed.call).toMatchObject({
      tool: 'Edit',
      input: { file_path: '/home/u/app/src/app.ts', file_paths: ['/home/u/app/src/app.ts', '/home/u/.bashrc'] },
      meta: { native_tool: 'apply_patch' },
    })
  })
  it('turns argv-array shell commands into command text gates can match', () => {
    const viaShell = h.parse('PreToolUse', { ...fixture('pre-tool-use'), tool_name: 'shell', tool_input: { command: ['bash', '-lc', 'rm -rf ~/.ssh'] } })
    expect(viaShell.kind === 'call' && viaShell.call).toMatchObject({ tool: 'Bash', input: { command: 'rm -rf ~/.ssh' } })
    const argv = h.parse('PreToolUse', { ...fixture('pre-tool-use'), tool_input: { command: ['git', 'commit', '-m', "it's done"] } })
    expect(argv.kind === 'call' && argv.call.input.command).toBe(`git commit -m 'it'\\''s done'`)
  })
  it('records PostToolUse as a ran outcome and ignores unknown fields', () => {
    expect(h.parse('PostToolUse', fixture('post-tool-use'))).toMatchObject({ kind: 'outcome', outcome: 'ran', call: { toolUseId: 'call_9', tool: 'Bash' } })
  })
})

describe('codex render', () => {
  it('denies with a non-empty reason', () => {
    expect(h.render('PreToolUse', { verdict: 'deny', ruleId: 'fs-01', reason: 'deleting ~/.ssh is blocked' }).body).toBe(
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"deleting ~/.ssh is blocked [svc rule fs-01]"}}',
    )
  })
  it('allows with an EMPTY body (Codex rejects a bare allow)', () => {
    expect(h.render('PreToolUse', { verdict: 'allow', ruleId: '', reason: '' }).body).toBe('')
    expect(h.render('PostToolUse', undefined).body).toBe('')
  })
})
