/**
 * OpenCode: no command hooks; an in-process plugin. `svc install` appends `[<file URL of plugin.ts>, {shim, url,
 * install, failOpen}]` to the `plugin` list of OpenCode's JSON(C) config (user: `~/.config/opencode/`, repo:
 * `opencode.json(c)`), and the plugin hands every tool call to the installed shim as `tool_execute_before` /
 * `tool_execute_after` (the shim takes no dots in event names). The payload is the plugin's own: OpenCode's
 * `tool`, `sessionID`, `callID` (a real tool-call id), `args`, the session `cwd`, and the MCP server it resolved
 * from the config. Answers are `{decision, reason}`; the plugin throws on a deny, which OpenCode turns into the
 * tool's error result. OpenCode has no OS sandbox: `svc install --sandbox` writes nothing for it.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { defineHarness, denyText } from '../../harness-contract/index.ts'
import { asRecord, compact, mappedCall, objectField, optionalString, readJsonc, requireString, stdioCommand } from '../kit/index.ts'
import type { ConfigLocation, HarnessEnv, HookAnswer, HookInput, InstallContext, McpServerEntry } from '../../harness-contract/index.ts'
import type { SvcPluginOptions } from './plugin.ts'
import { mapOpencodeTool } from './tools.ts'
import { opencodeHistory } from './history.ts'

const ID = 'opencode'
const EVENTS = { tool_execute_before: 'pre', tool_execute_after: 'post' } as const
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
/** The plugin OpenCode loads (Bun runs TypeScript as is). */
const PLUGIN = here('./plugin.ts')
const NAMES = ['opencode.jsonc', 'opencode.json', 'config.json']
/** Its MCP servers: the `mcp` map, `command` one argv array (`svc mcp wrap` swaps the whole array). */
const MCP_SHAPE = { map: 'mcp', command: 'argv' } as const

/** OpenCode's data directory (sessions, logs): $XDG_DATA_HOME/opencode, ~/.local/share/opencode by default. */
function dataDir(env: HarnessEnv): string {
  return join(env.env.XDG_DATA_HOME || join(env.home, '.local', 'share'), 'opencode')
}

/** OpenCode's user config directory: $XDG_CONFIG_HOME/opencode, ~/.config/opencode by default. */
function userDir(env: HarnessEnv): string {
  return join(env.env.XDG_CONFIG_HOME || join(env.home, '.config'), 'opencode')
}

/** The config file OpenCode reads in `dir` (the first of its names that exists), or `opencode.json` to create. */
function configIn(dir: string): string {
  return NAMES.map((n) => join(dir, n)).find((p) => existsSync(p)) ?? join(dir, 'opencode.json')
}

function configFile(env: HarnessEnv, scope: 'user' | 'repo'): string {
  if (scope === 'user') return configIn(userDir(env))
  // The project's own file when it has one at the root; otherwise `.opencode/opencode.json`, which OpenCode also reads.
  const repo = env.repo ?? '.'
  return NAMES.some((n) => existsSync(join(repo, n))) ? configIn(repo) : configIn(join(repo, '.opencode'))
}

function installPlan(ctx: InstallContext) {
  const options: SvcPluginOptions = {
    shim: ctx.shimPath,
    url: ctx.daemonUrl,
    ...(ctx.hookSocket ? { socket: ctx.hookSocket } : {}),
    install: ctx.installId,
    ...(ctx.failOpen ? { failOpen: true } : {}),
  }
  const file = configFile(ctx, ctx.scope)
  return {
    entries: [{ format: 'jsonc' as const, file, pointer: ['plugin'], value: [pathToFileURL(PLUGIN).href, options], seed: { $schema: 'https://opencode.ai/config.json' } }],
    notes: ['OpenCode loads plugins at start: restart running sessions. Its --pure flag (OPENCODE_PURE=1) skips every plugin, svc’s included.'],
  }
}

function parse(event: string, payload: Readonly<Record<string, unknown>>): HookInput {
  const phase = EVENTS[event as keyof typeof EVENTS]
  if (!phase) return { kind: 'ignore', why: `event ${event} is not gated` }
  const nativeTool = requireString(payload, 'tool')
  const cwd = optionalString(payload, 'cwd')
  const args = objectField(payload, 'args')
  const mcp = { server: optionalString(payload, 'mcp_server'), tool: optionalString(payload, 'mcp_tool') }
  // `workdir` is where OpenCode runs a command: relative paths in it are relative to that.
  const workdir = typeof args.workdir === 'string' && args.workdir.startsWith('/') ? args.workdir : undefined
  const mapped = mapOpencodeTool(nativeTool, args, workdir ?? cwd, mcp)
  const call = mappedCall(ID, nativeTool, mapped, { cwd: workdir ?? cwd, toolUseId: optionalString(payload, 'callID'), session: optionalString(payload, 'sessionID') })
  if (phase === 'pre') return { kind: 'call', call }
  return { kind: 'outcome', outcome: payload.error ? 'tool_errored' : 'ran', call }
}

function render(event: string, answer: HookAnswer | undefined): { body: string } {
  if (event === 'tool_execute_before' && answer?.verdict === 'deny') return { body: JSON.stringify({ decision: 'deny', reason: denyText(answer) }) }
  return { body: '{}' }
}

/** OpenCode's `mcp` map: `{type: "local", command: [argv], environment}` or `{type: "remote", url, headers}`. */
function mcpServers(env: HarnessEnv, read: (path: string) => string | undefined): McpServerEntry[] {
  const files = [configFile(env, 'user'), ...(env.repo ? [configFile(env, 'repo')] : [])]
  return files.flatMap((file) =>
    Object.entries(asRecord(readJsonc(read(file))?.mcp) ?? {}).flatMap(([name, raw]): McpServerEntry[] => {
      const s = asRecord(raw)
      if (!s) return []
      const argv = Array.isArray(s.command) ? s.command.filter((a): a is string => typeof a === 'string') : []
      const names = (m: unknown) => (asRecord(m) ? Object.keys(asRecord(m)!).sort() : undefined)
      if (typeof s.url === 'string') return [compact({ name, harness: ID, file, transport: 'http', url: s.url, headerNames: names(s.headers) }) as unknown as McpServerEntry]
      if (!argv[0]) return []
      // A wrapped entry's identity is the real server inside svc's wrapper.
      return [compact({ name, harness: ID, file, transport: 'stdio', ...stdioCommand(argv[0], argv.slice(1)), envNames: names(s.environment) }) as unknown as McpServerEntry]
    }),
  )
}

export default defineHarness({
  id: ID,
  displayName: 'OpenCode',
  events: EVENTS,
  detect(env, scope, exists) {
    if (scope === 'user') return exists(userDir(env))
    return !!env.repo && (exists(join(env.repo, '.opencode')) || NAMES.some((n) => exists(join(env.repo!, n))))
  },
  configLocations(env): ConfigLocation[] {
    const scopes = env.repo ? (['user', 'repo'] as const) : (['user'] as const)
    return (['hooks', 'mcp'] as const).flatMap((purpose) =>
      scopes.map((scope): ConfigLocation => ({ scope, path: configFile(env, scope), format: 'jsonc', purpose, ...(purpose === 'mcp' ? { mcpShape: MCP_SHAPE } : {}) })),
    )
  },
  installPlan,
  sandboxPlan: () => ({
    entries: [],
    notes: ['OpenCode has no OS sandbox for its tools (its `permission` rules are prompts on its own tool calls, not an OS boundary): only svc’s plugin gates it'],
  }),
  isOurs(value, installId) {
    return Array.isArray(value) && asRecord(value[1])?.install === installId
  },
  parse,
  render,
  mcpServers,
  // No OpenCode setting turns a configured plugin off from a project; `--pure` / OPENCODE_PURE do, on a run.
  protects: {
    files: [
      '**/opencode/opencode.json',
      '**/opencode/opencode.jsonc',
      '**/opencode/config.json',
      '**/opencode.json',
      '**/opencode.jsonc',
      '**/.opencode/**',
      '**/opencode/plugin/**',
      '**/opencode/plugins/**',
      PLUGIN,
    ],
    dirs: ['**/.config/opencode', '**/.opencode', '**/.opencode/plugin', '**/.opencode/plugins'],
    programs: ['opencode'],
  },
  configVariables: ['XDG_CONFIG_HOME', 'OPENCODE_CONFIG', 'OPENCODE_CONFIG_DIR', 'OPENCODE_CONFIG_CONTENT'],
  // They do not move a config: they drop its plugins, svc's included.
  hookOffVariables: ['OPENCODE_PURE', 'OPENCODE_DISABLE_PROJECT_CONFIG'],
  history: opencodeHistory(dataDir),
  // What the plugin would send for a native call (`svc explain --harness opencode`, `svc scan`).
  nativeCall: (tool, input, cwd) => ({ event: 'tool_execute_before', payload: { tool, args: input, ...(cwd ? { cwd } : {}), sessionID: 'svc-fixture', callID: 'svc-fixture' } }),
  replayIgnore: { fields: ['description'] },
  samples: { '.config/opencode/opencode.jsonc': here('./fixtures/install/opencode.jsonc') },
})
