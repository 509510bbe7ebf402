/**
 * Gemini CLI: `hooks` in settings.json (comments allowed), `BeforeTool`/`AfterTool` command hooks named
 * `svc:<event>`, answers `{decision, reason}`, and `mcp_context` on MCP calls (runtime server identity).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineHarness, denyText } from '../../harness-contract/index.ts'
import { asRecord, derivedToolUseId, groupIsOurs, mappedCall, objectField, optionalString, readJsonc, requireString, serversFromJsonMap, shimCommand } from '../kit/index.ts'
import type { ConfigLocation, HarnessEnv, HookAnswer, HookInput, InstallContext, InstallEntry, McpServerEntry } from '../../harness-contract/index.ts'
import { mapGeminiTool } from './tools.ts'
import { geminiSandboxPlan } from './sandbox.ts'
import { geminiHistory } from './history.ts'

const ID = 'gemini'
const EVENTS = { BeforeTool: 'pre', AfterTool: 'post' } as const
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const SCHEMA = here('./settings.schema.json')
const NAME_PREFIX = 'svc:'

/** Gemini CLI reads its user settings under $GEMINI_CLI_HOME when set, instead of the home directory. */
function geminiHome(env: HarnessEnv): string {
  return env.env.GEMINI_CLI_HOME || env.home
}

function settingsFile(env: HarnessEnv, scope: 'user' | 'repo'): string {
  return scope === 'user' ? join(geminiHome(env), '.gemini', 'settings.json') : join(env.repo ?? '.', '.gemini', 'settings.json')
}

function installPlan(ctx: InstallContext) {
  const file = settingsFile(ctx, ctx.scope)
  const entries: InstallEntry[] = Object.keys(EVENTS).map((event) => ({
    format: 'jsonc' as const,
    file,
    pointer: ['hooks', event],
    value: {
      matcher: '.*',
      hooks: [{ type: 'command', name: `${NAME_PREFIX}${event}`, command: shimCommand(ctx, ID, event, event !== 'BeforeTool'), timeout: 10000 }],
    },
    schema: SCHEMA,
  }))
  const notes = ctx.scope === 'repo' ? ['Gemini CLI asks you to trust new project hooks on the next start: accept the svc hooks.'] : []
  const hooksConfig = asRecord(asRecord(ctx.readConfig(file))?.hooksConfig)
  if (hooksConfig?.enabled === false) notes.push(`WARNING: hooksConfig.enabled is false in ${file}: Gemini CLI runs no hooks, so svc cannot gate anything until you enable them.`)
  const disabled = Array.isArray(hooksConfig?.disabled) ? hooksConfig.disabled.filter((n) => typeof n === 'string' && n.startsWith(NAME_PREFIX)) : []
  if (disabled.length) notes.push(`WARNING: ${disabled.join(', ')} listed in hooksConfig.disabled in ${file}: remove them or svc cannot gate tool calls.`)
  return { entries, notes }
}

function parse(event: string, payload: Readonly<Record<string, unknown>>): HookInput {
  const phase = EVENTS[event as keyof typeof EVENTS]
  if (!phase) return { kind: 'ignore', why: `event ${event} is not gated` }
  const nativeTool = requireString(payload, 'tool_name')
  const cwd = optionalString(payload, 'cwd')
  const rawInput = objectField(payload, 'tool_input')
  const mcpContext = asRecord(payload.mcp_context)
  const mapped = mapGeminiTool(nativeTool, rawInput, cwd, mcpContext)
  // Gemini sends no tool-call id: one derived from session, tool and input links AfterTool to its BeforeTool.
  const toolUseId = optionalString(payload, 'tool_use_id') ?? derivedToolUseId('gemini', payload.session_id, nativeTool, payload.tool_input)
  const call = mappedCall(ID, nativeTool, mapped, { cwd, toolUseId, session: optionalString(payload, 'session_id'), meta: { mcp_context: mcpContext } })
  if (phase === 'pre') return { kind: 'call', call, derivedId: optionalString(payload, 'tool_use_id') === undefined }
  const response = asRecord(payload.tool_response)
  const errored = response?.error !== undefined && response.error !== null
  return { kind: 'outcome', outcome: errored ? 'tool_errored' : 'ran', call }
}

function render(event: string, answer: HookAnswer | undefined): { body: string } {
  if (event === 'BeforeTool' && answer?.verdict === 'deny') return { body: JSON.stringify({ decision: 'deny', reason: denyText(answer) }) }
  // `decision: "allow"` would not skip Gemini's own confirmation anyway; `{}` says nothing.
  return { body: '{}' }
}

function mcpServers(env: HarnessEnv, read: (path: string) => string | undefined): McpServerEntry[] {
  const files = [settingsFile(env, 'user'), ...(env.repo ? [settingsFile(env, 'repo')] : [])]
  return files.flatMap((file) => serversFromJsonMap(readJsonc(read(file))?.mcpServers, ID, file))
}

/** `hooksConfig.enabled: false`, or svc's hook names in `hooksConfig.disabled` (also under the older `hooks` key). */
function hooksSwitchedOff(text: string): string[] {
  const settings = readJsonc(text)
  const out: string[] = []
  for (const key of ['hooksConfig', 'hooks'] as const) {
    const section = asRecord(settings?.[key])
    if (section?.enabled === false) out.push(`${key}.enabled: false`)
    const disabled = Array.isArray(section?.disabled)
      ? section.disabled.filter((n): n is string => typeof n === 'string' && (n.startsWith(NAME_PREFIX) || n.includes('svc-hook')))
      : []
    if (disabled.length) out.push(`${key}.disabled lists ${disabled.join(', ')}`)
  }
  return out
}

export default defineHarness({
  id: ID,
  displayName: 'Gemini CLI',
  events: EVENTS,
  detect(env, scope, exists) {
    if (scope === 'user') return exists(join(geminiHome(env), '.gemini'))
    return !!env.repo && (exists(join(env.repo, '.gemini')) || exists(join(env.repo, 'GEMINI.md')))
  },
  configLocations(env): ConfigLocation[] {
    const scopes: ('user' | 'repo')[] = env.repo ? ['user', 'repo'] : ['user']
    return scopes.flatMap((scope) => [
      { scope, path: settingsFile(env, scope), format: 'jsonc' as const, purpose: 'hooks' as const, schema: SCHEMA },
      { scope, path: settingsFile(env, scope), format: 'jsonc' as const, purpose: 'mcp' as const },
    ])
  },
  installPlan,
  // docs/threat-model.md: what its sandbox keeps from commands as svc configures it.
  sandboxCovers: { secrets: false, svcHome: false, outside: true, ports: true, daemon: true },
  sandboxPlan: (ctx) => geminiSandboxPlan(ctx, settingsFile(ctx, 'user'), SCHEMA),
  isOurs(value, installId) {
    if (groupIsOurs(value, installId)) return true
    const hooks = asRecord(value)?.hooks
    return Array.isArray(hooks) && hooks.some((h) => String(asRecord(h)?.name ?? '').startsWith(NAME_PREFIX))
  },
  parse,
  render,
  mcpServers,
  protects: {
    files: [
      '**/.gemini/settings.json',
      '**/.gemini/trusted_hooks.json',
      '/etc/gemini-cli/**',
      '/Library/Application Support/GeminiCli/**',
      // A seatbelt profile or sandbox image picked up from the project loosens its sandbox.
      '**/.gemini/sandbox-macos-*.sb',
      '**/.gemini/sandbox.Dockerfile',
    ],
    dirs: ['**/.gemini', '/etc/gemini-cli'],
    programs: ['gemini'],
  },
  history: geminiHistory(geminiHome),
  configVariables: ['GEMINI_CLI_HOME'],
  hookSwitches: {
    userFiles: (env) => [settingsFile(env, 'user')],
    projectFiles: (dir) => [join(dir, '.gemini', 'settings.json')],
    found: hooksSwitchedOff,
  },
  replayIgnore: { fields: ['description'] },
  samples: { '.gemini/settings.json': here('./fixtures/install/settings.json') },
})
