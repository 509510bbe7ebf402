/**
 * svc's OpenCode plugin, loaded by OpenCode itself (Bun) from the file URL `svc install` puts in the `plugin`
 * list of its config, with the install's options. It imports nothing of svc's: every tool call goes through the
 * installed hook shim (`$SVC_HOME/bin/svc-hook opencode <event>`), the same authenticated path as every command
 * hook. The shim sends a fresh nonce and accepts only an answer carrying the daemon's HMAC under hook.key (which
 * this process never reads), so a stand-in on the daemon's port cannot answer "allow". A deny, the shim's
 * fail-closed exit 2 (daemon down, slow or impersonated), any other exit, missing options or an answer that is
 * not JSON all throw from `tool.execute.before`, which is how OpenCode refuses a call; the message reaches the
 * model as the tool's result. `tool.execute.after` reports outcomes and never blocks.
 */
import { spawn } from 'node:child_process'

/** The plugin's options, as `svc install` writes them after the file URL. */
export interface SvcPluginOptions {
  /** Absolute path of the hook shim. */
  readonly shim: string
  /** The daemon's literal loopback URL. */
  readonly url: string
  /** A daemon under its own account: its hook socket (the shim's `--socket=`). */
  readonly socket?: string
  /** The install id marking svc's entries. */
  readonly install: string
  readonly failOpen?: boolean
}

interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

function runShim(o: SvcPluginOptions, event: string, payload: unknown, observe: boolean): Promise<Ran> {
  const args = [
    'opencode',
    event,
    `--url=${o.url}`,
    ...(o.socket ? [`--socket=${o.socket}`] : []),
    `--svc-install=${o.install}`,
    ...(observe ? ['--observe'] : []),
    ...(o.failOpen ? ['--fail-open'] : []),
  ]
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(o.shim, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    } catch (error) {
      return resolve({ code: -1, stdout, stderr: `svc: cannot run the hook shim ${o.shim}: ${String(error)}` })
    }
    child.stdout?.on('data', (c) => (stdout += c))
    child.stderr?.on('data', (c) => (stderr += c))
    child.on('error', (error) => resolve({ code: -1, stdout, stderr: `svc: cannot run the hook shim ${o.shim}: ${error.message}` }))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
    // A shim that fails before reading its input (no key, bad URL) closes the pipe: that EPIPE is its exit code's business.
    child.stdin?.on('error', () => undefined)
    child.stdin?.end(JSON.stringify(payload))
  })
}

/** The configured MCP server whose `<server>_` prefix names this tool (OpenCode joins server and tool with `_`). */
function mcpServerOf(tool: string, servers: readonly string[]): { mcp_server: string; mcp_tool: string } | undefined {
  const server = servers.filter((s) => tool.startsWith(`${s}_`)).sort((a, b) => b.length - a.length)[0]
  return server ? { mcp_server: server, mcp_tool: tool.slice(server.length + 1) } : undefined
}

interface ToolInput {
  readonly tool: string
  readonly sessionID?: string
  readonly callID?: string
}

export default async function svcPlugin(ctx: { readonly directory?: string }, options?: Partial<SvcPluginOptions>) {
  const o = options
  const ready = o && typeof o.shim === 'string' && typeof o.url === 'string' && typeof o.install === 'string'
  let servers: string[] = []
  const payload = (input: ToolInput, args: unknown, extra: Record<string, unknown> = {}) => ({
    tool: input.tool,
    sessionID: input.sessionID,
    callID: input.callID,
    args,
    cwd: ctx.directory,
    ...mcpServerOf(input.tool, servers),
    ...extra,
  })
  return {
    config: async (cfg: { mcp?: Record<string, unknown> }) => {
      servers = Object.keys(cfg?.mcp ?? {})
    },
    'tool.execute.before': async (input: ToolInput, output: { args?: unknown }) => {
      if (!ready) throw new Error('svc: the svc plugin was loaded without its options (shim, url, install); re-run `svc install`. The tool call was blocked.')
      const ran = await runShim(o as SvcPluginOptions, 'tool_execute_before', payload(input, output.args), false)
      if (ran.code !== 0) throw new Error(ran.stderr.trim() || `svc: the hook shim exited ${ran.code}. The tool call was blocked (fail-closed).`)
      let answer: { decision?: unknown; reason?: unknown }
      try {
        answer = ran.stdout.trim() ? JSON.parse(ran.stdout) : {}
      } catch {
        throw new Error('svc: the hook shim printed an answer that is not JSON. The tool call was blocked (fail-closed).')
      }
      if (answer.decision === 'deny') throw new Error(typeof answer.reason === 'string' ? answer.reason : 'svc: denied by policy')
    },
    'tool.execute.after': async (input: ToolInput & { args?: unknown }, output: { metadata?: { exit?: unknown } }) => {
      if (!ready) return
      await runShim(o as SvcPluginOptions, 'tool_execute_after', payload(input, input.args, { exit: output?.metadata?.exit }), true)
    },
  }
}
