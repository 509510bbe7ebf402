/**
 * Test helpers for `svc mcp-proxy`: the real relay process (cli/bin.js) in front of the fixture MCP server,
 * with the SDK's client on the harness side, or raw JSON-RPC lines for what the SDK does not speak.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { compileCache } from './child-env.ts'

export const ROOT = new URL('../..', import.meta.url).pathname
export const FIXTURE = `${ROOT}test/fixtures/mcp/server.ts`
export const STATELESS_FIXTURE = `${ROOT}test/fixtures/mcp/stateless-server.ts`

export interface ProxyTarget {
  readonly svcHome: string
  readonly url: string
  readonly cwd: string
}

/** argv of the relay wrapping `command` for server `server`. */
export function proxyArgv(server: string, command: readonly string[]): string[] {
  return [`${ROOT}cli/bin.js`, 'mcp-proxy', '--server', server, '--timeout', '3', '--', ...command]
}

function env(target: ProxyTarget, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...compileCache(), HOME: target.cwd, SVC_HOME: target.svcHome, SVC_URL: target.url, ...extra }
}

/** An SDK client connected through the relay to the fixture server; `stderr` collects the relay's warnings. */
export async function connectThroughProxy(
  target: ProxyTarget,
  server = 'fx',
  extra: Record<string, string> = {},
): Promise<{ client: Client; stderr: () => string; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: proxyArgv(server, [process.execPath, FIXTURE]),
    env: env(target, extra),
    cwd: target.cwd,
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (c) => (err += c))
  const client = new Client({ name: 'svc-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, stderr: () => err, close: () => client.close() }
}

/** The relay as a raw process: send lines, read lines back by id. */
export function rawProxy(
  target: ProxyTarget,
  command: readonly string[],
  server = 'fx',
): { child: ChildProcessWithoutNullStreams; send(msg: unknown): void; next(id: unknown): Promise<any>; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, proxyArgv(server, command), { cwd: target.cwd, env: env(target, {}) })
  const waiting = new Map<string, (msg: unknown) => void>()
  const seen = new Map<string, unknown>()
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line) as { id?: unknown }
    const key = JSON.stringify(msg.id ?? null)
    const w = waiting.get(key)
    if (w) w(msg)
    else seen.set(key, msg)
  })
  child.stderr.resume()
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  return {
    child,
    exit,
    send: (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`),
    next: (id) => {
      const key = JSON.stringify(id)
      if (seen.has(key)) return Promise.resolve(seen.get(key))
      return new Promise((resolve) => waiting.set(key, resolve))
    },
  }
}
