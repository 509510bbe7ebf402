/** Settings that switch svc's hooks off, found in real files under a temp home and project. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { projectHookSwitches, userHookSwitches } from './hook-switches.ts'

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-switches-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

describe('hook switches', () => {
  it('finds each harness’s project switch, in the directory and above it, and nothing in harmless settings', () => {
    const root = tree({
      'proj/.gemini/settings.json': '// mine\n{ "hooksConfig": { "disabled": ["svc:BeforeTool", "other"] } }',
      'proj/.claude/settings.local.json': '{ "disableAllHooks": true }',
      'proj/.claude/settings.json': '{ "permissions": {} }',
      'proj/.codex/config.toml': '[features]\nhooks = false\n',
      'proj/sub/.gemini/settings.json': '{ "hooksConfig": { "enabled": false } }',
      'other/.gemini/settings.json': '{ "hooksConfig": { "disabled": ["their-hook"] } }',
    })
    const found = projectHookSwitches(join(root, 'proj/sub'), root).map((s) => [s.harness, s.file.slice(root.length), s.setting])
    expect(found).toEqual([
      ['gemini', '/proj/sub/.gemini/settings.json', 'hooksConfig.enabled: false'],
      ['claude-code', '/proj/.claude/settings.local.json', 'disableAllHooks: true'],
      ['gemini', '/proj/.gemini/settings.json', 'hooksConfig.disabled lists svc:BeforeTool'],
      ['codex', '/proj/.codex/config.toml', '[features] hooks = false'],
    ])
    expect(projectHookSwitches(join(root, 'other'), root)).toEqual([])
  })

  it('reads the user layer where CLAUDE_CONFIG_DIR, GEMINI_CLI_HOME and CODEX_HOME put it', () => {
    const root = tree({
      'claude/settings.json': '{\n  // Claude Code cannot parse this\n  "hooks": {}\n}',
      'gem/.gemini/settings.json': '{ "hooks": { "disabled": ["svc:AfterTool"] } }',
      'codex/config.toml': '[features]\ncodex_hooks = false\n',
      'home/.claude/settings.json': '{ "disableAllHooks": true }',
    })
    const vars = { CLAUDE_CONFIG_DIR: join(root, 'claude'), GEMINI_CLI_HOME: join(root, 'gem'), CODEX_HOME: join(root, 'codex') }
    expect(userHookSwitches(join(root, 'home'), vars).map((s) => [s.harness, s.setting])).toEqual([
      ['claude-code', 'a file that is not strict JSON (comments or trailing commas; Claude Code ignores all of it)'],
      ['gemini', 'hooks.disabled lists svc:AfterTool'],
      ['codex', '[features] codex_hooks = false'],
    ])
    expect(userHookSwitches(join(root, 'home'), {}).map((s) => s.setting)).toEqual(['disableAllHooks: true'])
  })
})
