/**
 * Cursor: flat `hooks.json` (`{version: 1, hooks: {<event>: [{command, timeout, failClosed}]}}`), camelCase
 * events, answers `{permission, user_message, agent_message}`. MCP calls are decided on
 * `beforeMCPExecution`, which names the server's url/command (`preToolUse` only knows `MCP:<tool>`).
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { mcpToolName, UNRESOLVED_MCP_SERVER } from '../../core/index.ts'
import { defineHarness, denyText } from '../../harness-contract/index.ts'
import { absolutePath, asRecord, commandIsOurs, compact, objectField, optionalString, readJsonc, requireString, serversFromJsonMap, shimCommand } from '../kit/index.ts'
import type { ConfigLocation, HarnessEnv, HookAnswer, HookInput, InstallContext, InstallEntry, McpServerEntry } from '../../harness-contract/index.ts'
import { mapCursorTool } from './tools.ts'
import { cursorSandboxPlan } from './sandbox.ts'

const ID = 'cursor'
const EVENTS = {
  preToolUse: 'pre',
  beforeShellExecution: 'pre',
  beforeMCPExecution: 'pre',
  beforeReadFile: 'pre',
  postToolUse: 'post',
  postToolUseFailure: 'post_error',
} as const
/** Events the installer wires; the others are served when a user wires them by hand. */
const INSTALLED = ['preToolUse', 'beforeMCPExecution', 'postToolUse', 'postToolUseFailure'] as const

function hooksFile(env: HarnessEnv, scope: 'user' | 'repo'): string {
  return scope === 'user' ? join(env.home, '.cursor', 'hooks.json') : join(env.repo ?? '.', '.cursor', 'hooks.json')
}

function installPlan(ctx: InstallContext) {
  const file = hooksFile(ctx, ctx.scope)
  const entries: InstallEntry[] = INSTALLED.map((event) => {
    const pre = EVENTS[event] === 'pre'
    return {
      format: 'jsonc' as const,
      file,
      pointer: ['hooks', event],
      // failClosed makes Cursor itself block on a crash, timeout or bad JSON from the shim.
      value: { command: shimCommand(ctx, ID, event, !pre), timeout: 10, ...(pre && !ctx.failOpen ? { failClosed: true } : {}) },
      seed: { version: 1 },
    }
  })
  const notes = ctx.scope === 'repo' ? ['Cursor runs project hooks only in a trusted workspace.'] : []
  return { entries, notes }
}

function derivedId(payload: Readonly<Record<string, unknown>>, parts: unknown[]): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([payload.conversation_id ?? '', payload.generation_id ?? '', ...parts]))
    .digest('hex')
  return `cursor-${digest.slice(0, 24)}`
}

function parse(event: string, payload: Readonly<Record<string, unknown>>): HookInput {
  const phase = EVENTS[event as keyof typeof EVENTS]
  if (!phase) return { kind: 'ignore', why: `event ${event} is not gated` }
  const roots = Array.isArray(payload.workspace_roots) ? payload.workspace_roots : []
  const cwd = optionalString(payload, 'cwd') ?? (typeof roots[0] === 'string' ? roots[0] : undefined)
  const meta = compact({ harness_session_id: optionalString(payload, 'conversation_id'), cursor_event: event })
  const base = { source: ID, ...(cwd ? { cwd } : {}) }
  if (event === 'beforeShellExecution') {
    const command = requireString(payload, 'command')
    // `sandbox` says whether Cursor runs the command in its sandbox: the gate refuses `false` (self.unsandboxed-shell).
    const input = typeof payload.sandbox === 'boolean' ? { command, sandbox: payload.sandbox } : { command }
    return { kind: 'call', call: { ...base, tool: 'Bash', input, toolUseId: derivedId(payload, [event, command]), meta }, derivedId: true }
  }
  if (event === 'beforeReadFile') {
    // `content` (the whole file) is deliberately not copied into the call.
    const filePath = absolutePath(requireString(payload, 'file_path'), cwd)
    return { kind: 'call', call: { ...base, tool: 'Read', input: { file_path: filePath }, toolUseId: derivedId(payload, [event, filePath]), meta }, derivedId: true }
  }
  if (event === 'beforeMCPExecution') {
    const tool = requireString(payload, 'tool_name')
    const input = objectField(payload, 'tool_input')
    const identity = compact({ tool_name: tool, url: optionalString(payload, 'url'), command: optionalString(payload, 'command') })
    return {
      kind: 'call',
      call: {
        ...base,
        tool: mcpToolName(UNRESOLVED_MCP_SERVER, tool),
        input,
        toolUseId: optionalString(payload, 'tool_use_id') ?? derivedId(payload, [event, tool, input]),
        meta: { ...meta, mcp_context: identity },
      },
      derivedId: optionalString(payload, 'tool_use_id') === undefined,
    }
  }
  const nativeTool = requireString(payload, 'tool_name')
  // preToolUse names MCP tools `MCP:<tool>` without the server; beforeMCPExecution decides those.
  if (phase === 'pre' && nativeTool.startsWith('MCP:')) return { kind: 'ignore', why: 'MCP calls are decided on beforeMCPExecution' }
  const mapped = mapCursorTool(nativeTool, objectField(payload, 'tool_input'), cwd)
  const call = {
    ...base,
    tool: mapped.tool,
    input: mapped.input,
    toolUseId: optionalString(payload, 'tool_use_id') ?? derivedId(payload, [nativeTool, mapped.input]),
    meta: compact({ ...meta, native_tool: nativeTool !== mapped.tool ? nativeTool : undefined }),
  }
  if (phase === 'pre') return { kind: 'call', call, derivedId: optionalString(payload, 'tool_use_id') === undefined }
  // `MCP:<tool>` calls were decided on beforeMCPExecution under another id: no decision leaf links to this one.
  return { kind: 'outcome', outcome: phase === 'post_error' ? 'tool_errored' : 'ran', call, ...(nativeTool.startsWith('MCP:') ? { unlinkable: true } : {}) }
}

function render(event: string, answer: HookAnswer | undefined): { body: string } {
  if (EVENTS[event as keyof typeof EVENTS] !== 'pre') return { body: '{}' }
  if (answer?.verdict === 'deny') {
    const rule = answer.ruleId ? ` (${answer.ruleId})` : ''
    return { body: JSON.stringify({ permission: 'deny', user_message: `Blocked by svc policy${rule}`, agent_message: denyText(answer) }) }
  }
  // With failClosed an empty answer counts as a failure, so allow is spelled out (Cursor has no "no opinion").
  return { body: JSON.stringify({ permission: 'allow' }) }
}

function mcpServers(env: HarnessEnv, read: (path: string) => string | undefined): McpServerEntry[] {
  const files = [join(env.home, '.cursor', 'mcp.json'), ...(env.repo ? [join(env.repo, '.cursor', 'mcp.json')] : [])]
  return files.flatMap((file) => serversFromJsonMap(readJsonc(read(file))?.mcpServers, ID, file))
}

export default defineHarness({
  id: ID,
  displayName: 'Cursor',
  events: EVENTS,
  detect(env, scope, exists) {
    if (scope === 'user') return exists(join(env.home, '.cursor'))
    return !!env.repo && exists(join(env.repo, '.cursor'))
  },
  configLocations(env): ConfigLocation[] {
    const scopes: ('user' | 'repo')[] = env.repo ? ['user', 'repo'] : ['user']
    return scopes.flatMap((scope) => [
      { scope, path: hooksFile(env, scope), format: 'jsonc' as const, purpose: 'hooks' as const },
      { scope, path: join(scope === 'user' ? join(env.home, '.cursor') : join(env.repo ?? '.', '.cursor'), 'mcp.json'), format: 'jsonc' as const, purpose: 'mcp' as const },
    ])
  },
  installPlan,
  // docs/threat-model.md: what its sandbox keeps from commands as svc configures it.
  sandboxCovers: { secrets: false, svcHome: false, outside: true, ports: true, daemon: false },
  sandboxPlan: cursorSandboxPlan,
  isOurs(value, installId) {
    return commandIsOurs(asRecord(value)?.command, installId)
  },
  parse,
  render,
  mcpServers,
  // No setting of Cursor's turns user hooks off from a project: it has no hookSwitches.
  protects: {
    files: ['**/.cursor/hooks.json', '**/.cursor/mcp.json', '**/.cursor/sandbox.json', '/etc/cursor/**', '/Library/Application Support/Cursor/**'],
    dirs: ['**/.cursor', '/etc/cursor'],
    programs: ['cursor-agent'],
  },
  // Its tools explain themselves (`explanation`), and Shell echoes the cwd as `working_directory`.
  replayIgnore: { fields: ['explanation'], cwdEchoes: ['working_directory'] },
  sandboxSettings: (env) => [join(env.home, '.cursor', 'sandbox.json')],
})
