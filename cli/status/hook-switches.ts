/**
 * Settings that switch svc's hooks off without touching svc's entries: Claude Code's `disableAllHooks`
 * (user, project `.claude/settings.json` and `.claude/settings.local.json`), Gemini CLI's
 * `hooksConfig.enabled: false` or svc's hook names in `hooksConfig.disabled` (user and project
 * `.gemini/settings.json`, merged without a restart), Codex's `[features] hooks = false` (user and project
 * `.codex/config.toml`). Cursor has no setting that turns user hooks off from a project. Read-only and
 * light: `svc status` runs it for the user's files and for every project directory it knows of.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import { parse as parseToml } from 'smol-toml'

export interface HookSwitch {
  readonly harness: string
  readonly file: string
  readonly setting: string
}

const record = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined)

function read(file: string, format: 'json' | 'toml'): Record<string, unknown> | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  try {
    return record(format === 'json' ? parseJsonc(text) : parseToml(text))
  } catch {
    return undefined
  }
}

function claude(file: string): HookSwitch[] {
  const settings = read(file, 'json')
  if (settings && !strictJson(file)) return [{ harness: 'claude-code', file, setting: 'a file that is not strict JSON (comments or trailing commas; Claude Code ignores all of it)' }]
  return settings?.disableAllHooks === true ? [{ harness: 'claude-code', file, setting: 'disableAllHooks: true' }] : []
}

/** Claude Code reads settings.json with a strict JSON parser and ignores a file that fails it. */
function strictJson(file: string): boolean {
  try {
    const text = readFileSync(file, 'utf8')
    if (text.trim() !== '') JSON.parse(text)
    return true
  } catch {
    return false
  }
}

function gemini(file: string): HookSwitch[] {
  const settings = read(file, 'json')
  const out: HookSwitch[] = []
  for (const key of ['hooksConfig', 'hooks'] as const) {
    const section = record(settings?.[key])
    if (section?.enabled === false) out.push({ harness: 'gemini', file, setting: `${key}.enabled: false` })
    const disabled = Array.isArray(section?.disabled) ? section.disabled.filter((n): n is string => typeof n === 'string' && (n.startsWith('svc:') || n.includes('svc-hook'))) : []
    if (disabled.length) out.push({ harness: 'gemini', file, setting: `${key}.disabled lists ${disabled.join(', ')}` })
  }
  return out
}

function codex(file: string): HookSwitch[] {
  const features = record(read(file, 'toml')?.features)
  return ['hooks', 'codex_hooks'].filter((k) => features?.[k] === false).map((k) => ({ harness: 'codex', file, setting: `[features] ${k} = false` }))
}

/** Switches in the user-level configs (relocated by CLAUDE_CONFIG_DIR, GEMINI_CLI_HOME, CODEX_HOME). */
export function userHookSwitches(home: string, vars: Readonly<Record<string, string | undefined>>): HookSwitch[] {
  return [
    ...claude(join(vars.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'settings.json')),
    ...gemini(join(vars.GEMINI_CLI_HOME || home, '.gemini', 'settings.json')),
    ...codex(join(vars.CODEX_HOME || join(home, '.codex'), 'config.toml')),
  ]
}

/** Switches in the project layers of `dir` and each directory above it (harnesses search upwards), below `stop`. */
export function projectHookSwitches(dir: string, stop: string): HookSwitch[] {
  const out: HookSwitch[] = []
  for (let d = dir; ; d = dirname(d)) {
    if (d === stop) break
    out.push(...claude(join(d, '.claude', 'settings.json')), ...claude(join(d, '.claude', 'settings.local.json')))
    out.push(...gemini(join(d, '.gemini', 'settings.json')), ...codex(join(d, '.codex', 'config.toml')))
    if (dirname(d) === d) break
  }
  return out
}
