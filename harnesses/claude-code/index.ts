/**
 * Claude Code: `hooks` in settings.json (user `~/.claude/settings.json`, repo `.claude/settings.local.json`),
 * Claude-style payloads, `hookSpecificOutput.permissionDecision` answers, and an opt-in native HTTP hook.
 */
import { join } from 'node:path'
import { parse as parseJsonc, type ParseError } from 'jsonc-parser'
import { fileURLToPath } from 'node:url'
import { RefusalError } from '../../core/index.ts'
import { defineHarness, denyText } from '../../harness-contract/index.ts'
import { claudeSandboxPlan } from './sandbox.ts'
import { probeClaude } from './probe.ts'
import { claudeHistory } from './history.ts'
import { asRecord, groupIsOurs, INSTALL_HEADER, parseClaudeStyle, readJsonc, serversFromJsonMap, shimCommand } from '../kit/index.ts'
import type { ConfigLocation, HarnessEnv, HookAnswer, HookInput, InstallContext, InstallEntry, McpServerEntry } from '../../harness-contract/index.ts'

const ID = 'claude-code'
const EVENTS = { PreToolUse: 'pre', PostToolUse: 'post', PostToolUseFailure: 'post_error' } as const
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const SCHEMA = here('./settings.schema.json')

function configDir(env: HarnessEnv): string {
  return env.env.CLAUDE_CONFIG_DIR ?? join(env.home, '.claude')
}

function hooksFile(env: HarnessEnv, scope: 'user' | 'repo'): string {
  if (scope === 'user') return join(configDir(env), 'settings.json')
  // settings.local.json is personal (not committed): the shim path in it is specific to this machine.
  return join(env.repo ?? '.', '.claude', 'settings.local.json')
}

function handler(ctx: InstallContext, event: string): Record<string, unknown> {
  if (ctx.transport === 'http') {
    return { type: 'http', url: `${ctx.daemonUrl}/v1/hooks/${ID}/${event}`, headers: { [INSTALL_HEADER]: ctx.installId }, timeout: 10 }
  }
  return { type: 'command', command: shimCommand(ctx, ID, event, event !== 'PreToolUse'), timeout: 10 }
}

/**
 * Claude Code parses settings.json as strict JSON and silently ignores a file it cannot parse (comments,
 * trailing commas): hooks written there would never run. Refuse rather than install hooks that are off.
 */
function assertStrictJson(file: string, text: string | undefined): void {
  if (text === undefined || text.trim() === '') return
  const errors: ParseError[] = []
  parseJsonc(text, errors, { allowTrailingComma: true })
  // Unparsable even as JSONC: the installer's own error names it.
  if (errors.length > 0) return
  try {
    JSON.parse(text)
  } catch {
    throw new RefusalError(
      422,
      'unprocessable',
      `${file} is not strict JSON (comments or trailing commas): Claude Code ignores the whole file, so hooks written there would never run. Make it plain JSON, then re-run svc install`,
    )
  }
}

function installPlan(ctx: InstallContext) {
  const file = hooksFile(ctx, ctx.scope)
  assertStrictJson(file, ctx.readText(file))
  const entries: InstallEntry[] = Object.keys(EVENTS).map((event) => ({
    format: 'jsonc' as const,
    file,
    pointer: ['hooks', event],
    value: { matcher: '*', hooks: [handler(ctx, event)] },
    schema: SCHEMA,
  }))
  const current = asRecord(ctx.readConfig(file))
  // Only extend an existing allow-list: creating the key would switch enforcement on for every other HTTP hook.
  if (ctx.transport === 'http' && Array.isArray(current?.allowedHttpHookUrls)) {
    entries.push({ format: 'jsonc', file, pointer: ['allowedHttpHookUrls'], value: `${ctx.daemonUrl}/v1/hooks/*`, schema: SCHEMA })
  }
  const notes = [
    ctx.scope === 'repo' ? 'Claude Code runs project hooks only in a trusted workspace: accept the trust prompt.' : '',
    ctx.transport === 'http'
      ? 'The HTTP hook FAILS OPEN: if the svc daemon is down, slow or errors, Claude Code runs the tool anyway. Use the default command transport for fail-closed.'
      : '',
    current?.disableAllHooks === true ? `WARNING: disableAllHooks is true in ${file}: Claude Code runs no hooks, so svc cannot gate anything until you remove it.` : '',
  ].filter(Boolean)
  return { entries, notes }
}

function mcpServers(env: HarnessEnv, read: (path: string) => string | undefined): McpServerEntry[] {
  const out: McpServerEntry[] = []
  const userFile = env.env.CLAUDE_CONFIG_DIR ? join(env.env.CLAUDE_CONFIG_DIR, '.claude.json') : join(env.home, '.claude.json')
  const user = readJsonc(read(userFile))
  out.push(...serversFromJsonMap(user?.mcpServers, ID, userFile))
  if (env.repo) {
    const local = asRecord(asRecord(user?.projects)?.[env.repo])
    out.push(...serversFromJsonMap(local?.mcpServers, ID, userFile))
    const projectFile = join(env.repo, '.mcp.json')
    out.push(...serversFromJsonMap(readJsonc(read(projectFile))?.mcpServers, ID, projectFile))
  }
  return out
}

function render(event: string, answer: HookAnswer | undefined): { body: string } {
  if (event === 'PreToolUse' && answer?.verdict === 'deny') {
    return {
      body: JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: denyText(answer) },
      }),
    }
  }
  // `{}` leaves Claude's own permission flow in charge; an explicit allow would skip its prompt.
  return { body: '{}' }
}

/** Claude Code reads settings.json with a strict JSON parser and ignores a file that fails it. */
function strictJson(text: string): boolean {
  try {
    if (text.trim() !== '') JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** `disableAllHooks` (user settings, project settings.json and settings.local.json), or a file Claude Code ignores whole. */
function hooksSwitchedOff(text: string): string[] {
  const settings = readJsonc(text)
  if (settings && !strictJson(text)) return ['a file that is not strict JSON (comments or trailing commas; Claude Code ignores all of it)']
  return settings?.disableAllHooks === true ? ['disableAllHooks: true'] : []
}

export default defineHarness({
  id: ID,
  displayName: 'Claude Code',
  events: EVENTS,
  detect(env, scope, exists) {
    if (scope === 'user') return exists(configDir(env)) || exists(join(env.home, '.claude.json'))
    return !!env.repo && (exists(join(env.repo, '.claude')) || exists(join(env.repo, '.mcp.json')) || exists(join(env.repo, 'CLAUDE.md')))
  },
  configLocations(env): ConfigLocation[] {
    const locations: ConfigLocation[] = [
      { scope: 'user', path: hooksFile(env, 'user'), format: 'jsonc', purpose: 'hooks', schema: SCHEMA },
      { scope: 'user', path: join(env.home, '.claude.json'), format: 'jsonc', purpose: 'mcp' },
    ]
    if (env.repo) {
      locations.push({ scope: 'repo', path: hooksFile(env, 'repo'), format: 'jsonc', purpose: 'hooks', schema: SCHEMA })
      locations.push({ scope: 'repo', path: join(env.repo, '.mcp.json'), format: 'jsonc', purpose: 'mcp' })
    }
    return locations
  },
  installPlan,
  // docs/threat-model.md: what its sandbox keeps from commands as svc configures it.
  sandboxCovers: { secrets: true, svcHome: true, outside: true, ports: true, daemon: true },
  sandboxPlan: (ctx) => claudeSandboxPlan(ctx, hooksFile(ctx, 'user'), SCHEMA),
  isOurs: groupIsOurs,
  parse(event, payload): HookInput {
    return parseClaudeStyle(ID, EVENTS, event, payload, (tool, input) => ({ tool, input }))
  },
  render,
  mcpServers,
  protects: {
    files: [
      '**/.claude/settings.json',
      '**/.claude/settings.local.json',
      '**/.claude/hooks/**',
      '~/.claude.json',
      '**/.mcp.json',
      '**/managed-mcp.json',
      // sandbox-runtime's own settings, and the managed (root-owned) settings on Linux and macOS.
      '**/.srt-settings.json',
      '/etc/claude-code/**',
      '/Library/Application Support/ClaudeCode/**',
    ],
    dirs: ['**/.claude', '**/.claude/hooks'],
    programs: ['claude'],
  },
  configVariables: ['CLAUDE_CONFIG_DIR'],
  hookSwitches: {
    userFiles: (env) => [hooksFile(env, 'user')],
    projectFiles: (dir) => [join(dir, '.claude', 'settings.json'), join(dir, '.claude', 'settings.local.json')],
    found: hooksSwitchedOff,
  },
  // Bash's `description`, `timeout` and `run_in_background` say how to run a command, not which.
  replayIgnore: { fields: ['description', 'timeout', 'run_in_background'] },
  sandboxSettings: (env) => [join(env.home, '.srt-settings.json')],
  sandboxProbe: probeClaude,
  history: claudeHistory(configDir),
  samples: { '.claude/settings.json': here('./fixtures/install/settings.json') },
})
