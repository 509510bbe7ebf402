/**
 * OpenAI Codex CLI: hooks in `hooks.json` beside `config.toml` (or `[hooks]` tables inside it), Claude-style
 * payloads, a strict answer parser (deny needs a non-empty reason; a bare allow fails the hook, so allow
 * prints nothing) and positional trust keys (our group always goes last).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseToml } from 'smol-toml'
import { codexSandboxPlan } from './sandbox.ts'
import { defineHarness, denyText } from '../../harness-contract/index.ts'
import { asRecord, groupIsOurs, parseClaudeStyle, serversFromCodexToml, shimCommand } from '../kit/index.ts'
import type { ConfigLocation, HarnessEnv, HookAnswer, InstallContext, InstallEntry, McpServerEntry } from '../../harness-contract/index.ts'
import { mapCodexTool } from './tools.ts'
import { probeCodex } from './probe.ts'
import { codexTrust } from './trust.ts'
import { codexHistory } from './history.ts'

const ID = 'codex'
const EVENTS = { PreToolUse: 'pre', PostToolUse: 'post' } as const
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const SCHEMA = here('./hooks.schema.json')

function codexDir(env: HarnessEnv, scope: 'user' | 'repo'): string {
  return scope === 'user' ? (env.env.CODEX_HOME ?? join(env.home, '.codex')) : join(env.repo ?? '.', '.codex')
}

function parseTomlQuietly(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return parseToml(text)
  } catch {
    return undefined
  }
}

function tomlQuote(value: string): string {
  return JSON.stringify(value)
}

function tomlBlock(ctx: InstallContext): string {
  const lines = ['', '# svc policy hooks: added by `svc install`, removed by `svc uninstall`.']
  for (const event of Object.keys(EVENTS)) {
    lines.push(`[[hooks.${event}]]`, 'matcher = ".*"', '', `[[hooks.${event}.hooks]]`, 'type = "command"')
    lines.push(`command = ${tomlQuote(shimCommand(ctx, ID, event, event !== 'PreToolUse'))}`, 'timeout = 10', '')
  }
  return lines.join('\n')
}

function installPlan(ctx: InstallContext) {
  const dir = codexDir(ctx, ctx.scope)
  const hooksJson = join(dir, 'hooks.json')
  const configToml = join(dir, 'config.toml')
  const tomlText = ctx.readText(configToml)
  // A layer with both files loads both and warns, so follow the user's choice when they keep hooks in TOML.
  // `[hooks.state."…"]` tables only record trust (also for hooks.json entries); they do not mean hooks live here.
  const usesToml = ctx.readText(hooksJson) === undefined && tomlText !== undefined && /^\s*\[\[?hooks(\]|\.(?!state\b))/m.test(tomlText)
  const entries: InstallEntry[] = usesToml
    ? [{ format: 'toml', file: configToml, text: tomlBlock(ctx) }]
    : Object.keys(EVENTS).map((event) => ({
        format: 'jsonc' as const,
        file: hooksJson,
        pointer: ['hooks', event],
        value: {
          matcher: '.*',
          hooks: [{ type: 'command', command: shimCommand(ctx, ID, event, event !== 'PreToolUse'), timeout: 10, statusMessage: 'svc policy check' }],
        },
        schema: SCHEMA,
      }))
  const features = asRecord(asRecord(parseTomlQuietly(tomlText))?.features)
  const notes = [
    ...(features?.hooks === false || features?.codex_hooks === false
      ? [`WARNING: [features] turns hooks off in ${configToml}: Codex runs no hooks, so svc cannot gate anything until you enable them.`]
      : []),
    "Codex runs a hook only after its exact definition is trusted: `svc install` trusts svc's entries through Codex's app server (after an install through the API, run `svc doctor --fix` or trust them in Codex's `/hooks`).",
    ...(ctx.scope === 'repo' ? ['Project hooks load only when the project .codex/ layer is trusted.'] : []),
  ]
  return { entries, notes }
}

function render(event: string, answer: HookAnswer | undefined): { body: string } {
  if (event === 'PreToolUse' && answer?.verdict === 'deny') {
    return {
      body: JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: denyText(answer) || 'denied by svc policy' },
      }),
    }
  }
  // Codex rejects a bare `allow` (the hook then counts as failed): allowing means printing nothing.
  return { body: '' }
}

function mcpServers(env: HarnessEnv, read: (path: string) => string | undefined): McpServerEntry[] {
  const out: McpServerEntry[] = []
  const files = [join(codexDir(env, 'user'), 'config.toml'), ...(env.repo ? [join(codexDir(env, 'repo'), 'config.toml')] : [])]
  for (const file of files) {
    const text = read(file)
    if (text === undefined) continue
    try {
      out.push(...serversFromCodexToml(text, file))
    } catch {
      // An unparsable config.toml has no servers Codex could start either.
    }
  }
  return out
}

/** `[features] hooks = false` (or the older `codex_hooks`) in a config.toml: Codex runs no hooks. */
function hooksSwitchedOff(text: string): string[] {
  const features = asRecord(asRecord(parseTomlQuietly(text))?.features)
  return ['hooks', 'codex_hooks'].filter((k) => features?.[k] === false).map((k) => `[features] ${k} = false`)
}

export default defineHarness({
  id: ID,
  displayName: 'OpenAI Codex CLI',
  events: EVENTS,
  detect(env, scope, exists) {
    if (scope === 'user') return exists(codexDir(env, 'user'))
    return !!env.repo && (exists(codexDir(env, 'repo')) || exists(join(env.repo, 'AGENTS.md')))
  },
  configLocations(env): ConfigLocation[] {
    const scopes: ('user' | 'repo')[] = env.repo ? ['user', 'repo'] : ['user']
    return scopes.flatMap((scope) => [
      { scope, path: join(codexDir(env, scope), 'hooks.json'), format: 'jsonc' as const, purpose: 'hooks' as const, schema: SCHEMA },
      { scope, path: join(codexDir(env, scope), 'config.toml'), format: 'toml' as const, purpose: 'mcp' as const },
    ])
  },
  installPlan,
  // docs/threat-model.md: what its sandbox keeps from commands as svc configures it.
  sandboxCovers: { secrets: false, svcHome: false, outside: true, ports: true, daemon: true },
  sandboxPlan: (ctx) => codexSandboxPlan(ctx, codexDir(ctx, 'user')),
  isOurs: groupIsOurs,
  parse(event, payload) {
    return parseClaudeStyle(ID, EVENTS, event, payload, mapCodexTool)
  },
  render,
  mcpServers,
  protects: {
    files: ['**/.codex/hooks.json', '**/.codex/config.toml', '**/.codex/requirements.toml', '/etc/codex/**'],
    dirs: ['**/.codex'],
    programs: ['codex'],
  },
  history: codexHistory((env) => codexDir(env, 'user')),
  configVariables: ['CODEX_HOME'],
  hookSwitches: {
    userFiles: (env) => [join(codexDir(env, 'user'), 'config.toml')],
    projectFiles: (dir) => [join(dir, '.codex', 'config.toml')],
    found: hooksSwitchedOff,
  },
  sandboxProbe: (targets, _files, env) => probeCodex(targets, env),
  trust: codexTrust,
  samples: { '.codex/hooks.json': here('./fixtures/install/hooks.json'), '.codex/config.toml': here('./fixtures/install/config.toml') },
})
