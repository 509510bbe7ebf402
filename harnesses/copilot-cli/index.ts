/**
 * GitHub Copilot CLI: command hooks in `hooks/*.json` files (`{version: 1, hooks: {preToolUse: [{type:
 * "command", bash, timeoutSec}]}}`), svc's own file `svc.json` in the user hooks directory
 * (`$COPILOT_HOME/hooks/`, `~/.copilot/hooks/` by default) or the repository's `.github/hooks/`. Payloads are
 * camelCase (`sessionId`, `timestamp`, `cwd`, `toolName`, `toolArgs` as an object; `postToolUse` adds
 * `toolResult.resultType`), as captured from the pinned binary; a deny is `{permissionDecision: "deny",
 * permissionDecisionReason}`, which reaches the model as "Denied by preToolUse hook: <reason>". Exit 2 (the
 * shim's fail-closed exit) also denies. No tool-call id is sent: one is derived from session, tool and args.
 */
import { join } from 'node:path'
import { defineHarness, denyText } from '../../harness-contract/index.ts'
import { asRecord, commandIsOurs, derivedToolUseId, mappedCall, objectField, optionalString, readJsonc, requireString, serversFromJsonMap, shimCommand } from '../kit/index.ts'
import type { ConfigLocation, HarnessEnv, HookAnswer, HookInput, InstallContext, InstallEntry, McpServerEntry } from '../../harness-contract/index.ts'
import { mapCopilotTool } from './tools.ts'
import { copilotSandboxPlan } from './sandbox.ts'
import { copilotHistory } from './history.ts'

const ID = 'copilot-cli'
const EVENTS = { preToolUse: 'pre', postToolUse: 'post', postToolUseFailure: 'post_error' } as const
/** Events the installer wires; `postToolUseFailure` is served when a user wires it by hand. */
const INSTALLED = ['preToolUse', 'postToolUse'] as const
const here = (path: string) => new URL(path, import.meta.url).pathname

/** Copilot CLI keeps config and state under $COPILOT_HOME when set, instead of ~/.copilot. */
function copilotHome(env: HarnessEnv): string {
  return env.env.COPILOT_HOME || join(env.home, '.copilot')
}

function hooksFile(env: HarnessEnv, scope: 'user' | 'repo'): string {
  return scope === 'user' ? join(copilotHome(env), 'hooks', 'svc.json') : join(env.repo ?? '.', '.github', 'hooks', 'svc.json')
}

function mcpFiles(env: HarnessEnv): string[] {
  return [join(copilotHome(env), 'mcp-config.json'), ...(env.repo ? [join(env.repo, '.github', 'mcp.json'), join(env.repo, '.mcp.json')] : [])]
}

function installPlan(ctx: InstallContext) {
  const file = hooksFile(ctx, ctx.scope)
  const entries: InstallEntry[] = INSTALLED.map((event) => ({
    format: 'jsonc' as const,
    file,
    pointer: ['hooks', event],
    value: { type: 'command', bash: shimCommand(ctx, ID, event, EVENTS[event] !== 'pre'), timeoutSec: 10 },
    seed: { version: 1 },
  }))
  const notes = ctx.scope === 'repo' ? ['Copilot CLI loads repository hooks only in a folder you trusted.'] : []
  for (const settings of hookSwitches.userFiles(ctx)) {
    for (const found of hooksSwitchedOff(ctx.readText(settings) ?? ''))
      notes.push(`WARNING: ${found} in ${settings}: Copilot CLI runs no hooks, so svc cannot gate anything until you remove it.`)
  }
  return { entries, notes }
}

function parse(event: string, payload: Readonly<Record<string, unknown>>): HookInput {
  const phase = EVENTS[event as keyof typeof EVENTS]
  if (!phase) return { kind: 'ignore', why: `event ${event} is not gated` }
  const nativeTool = requireString(payload, 'toolName')
  const cwd = optionalString(payload, 'cwd')
  // Older builds sent toolArgs as a JSON string; objectField takes both.
  const args = objectField(payload, 'toolArgs')
  const mapped = mapCopilotTool(nativeTool, args, cwd)
  // Copilot sends no tool-call id: one derived from session, tool and args links postToolUse to its preToolUse.
  const toolUseId = derivedToolUseId('copilot', payload.sessionId, nativeTool, args)
  const call = mappedCall(ID, nativeTool, mapped, { cwd, toolUseId, session: optionalString(payload, 'sessionId') })
  if (phase === 'pre') return { kind: 'call', call, derivedId: true }
  const resultType = asRecord(payload.toolResult)?.resultType
  if (resultType === 'denied' || resultType === 'rejected') return { kind: 'ignore', why: `the tool did not run (${resultType})` }
  return { kind: 'outcome', outcome: phase === 'post_error' || (resultType !== undefined && resultType !== 'success') ? 'tool_errored' : 'ran', call }
}

function render(event: string, answer: HookAnswer | undefined): { body: string } {
  if (event === 'preToolUse' && answer?.verdict === 'deny') return { body: JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: denyText(answer) }) }
  // An explicit "allow" would also skip Copilot's own permission prompt: svc's allow only means "no objection".
  return { body: '{}' }
}

function mcpServers(env: HarnessEnv, read: (path: string) => string | undefined): McpServerEntry[] {
  return mcpFiles(env).flatMap((file) => serversFromJsonMap(readJsonc(read(file))?.mcpServers, ID, file))
}

/** `disableAllHooks: true` (user or repository settings) switches every hook off, svc's included. */
function hooksSwitchedOff(text: string): string[] {
  return readJsonc(text)?.disableAllHooks === true ? ['disableAllHooks: true'] : []
}

const hookSwitches = {
  userFiles: (env: HarnessEnv) => [join(copilotHome(env), 'settings.json'), join(copilotHome(env), 'config.json')],
  // Read only in a folder the user trusted (checked with the pinned binary: untrusted, the hooks still ran).
  projectFiles: (dir: string) => [join(dir, '.github', 'copilot', 'settings.json'), join(dir, '.github', 'copilot', 'settings.local.json')],
  found: hooksSwitchedOff,
}

export default defineHarness({
  id: ID,
  displayName: 'GitHub Copilot CLI',
  events: EVENTS,
  detect(env, scope, exists) {
    if (scope === 'user') return exists(copilotHome(env))
    return (
      !!env.repo && (exists(join(env.repo, '.github', 'hooks')) || exists(join(env.repo, '.github', 'copilot')) || exists(join(env.repo, '.github', 'copilot-instructions.md')))
    )
  },
  configLocations(env): ConfigLocation[] {
    const hooks: ConfigLocation[] = (env.repo ? (['user', 'repo'] as const) : (['user'] as const)).map((scope) => ({
      scope,
      path: hooksFile(env, scope),
      format: 'jsonc',
      purpose: 'hooks',
    }))
    const mcp = mcpFiles(env).map((path, i): ConfigLocation => ({ scope: i === 0 ? 'user' : 'repo', path, format: 'jsonc', purpose: 'mcp' }))
    return [...hooks, ...mcp]
  },
  installPlan,
  sandboxPlan: (ctx) => copilotSandboxPlan(ctx, join(copilotHome(ctx), 'settings.json')),
  isOurs(value, installId) {
    return commandIsOurs(asRecord(value)?.bash, installId)
  },
  parse,
  render,
  mcpServers,
  protects: {
    files: [
      '**/.copilot/hooks/**',
      '**/.copilot/settings.json',
      '**/.copilot/config.json',
      '**/.copilot/mcp-config.json',
      '**/.github/hooks/**',
      '**/.github/copilot/settings.json',
      '**/.github/copilot/settings.local.json',
      '**/.github/mcp.json',
    ],
    dirs: ['**/.copilot', '**/.copilot/hooks', '**/.github/hooks', '**/.github/copilot'],
    programs: ['copilot'],
  },
  configVariables: ['COPILOT_HOME'],
  hookSwitches,
  // Its shell tool explains itself (`description`), which says nothing about what runs.
  replayIgnore: { fields: ['description'] },
  sandboxSettings: (env) => [join(copilotHome(env), 'settings.json')],
  // Run by the harm suite: commands see a private home (no credentials, no $SVC_HOME) and a private network
  // namespace; `~/.npmrc` and the project's `.env` stay readable, so secrets are not covered.
  sandboxCovers: { secrets: false, svcHome: true, outside: true, ports: true, daemon: true },
  history: copilotHistory(copilotHome),
  // What its preToolUse hook would receive for a native call (`svc explain --harness copilot-cli`, `svc scan`).
  nativeCall: (tool, input, cwd) => ({ event: 'preToolUse', payload: { toolName: tool, toolArgs: input, ...(cwd ? { cwd } : {}), sessionId: 'svc-fixture', timestamp: 0 } }),
  samples: { '.copilot/settings.json': here('./fixtures/install/settings.json') },
})
