/**
 * `svc mcp-proxy --server <id> [--harness <id>] [--url <daemon>] [--timeout <s>] -- <command> [args…]`: the relay a
 * harness starts in place of an MCP server (`svc mcp wrap` writes that). It starts the real server as a child,
 * relays JSON-RPC both ways (relay.ts), passes the child's stderr through, forwards SIGINT/SIGTERM/SIGHUP and
 * exits with the child's status (or re-raises the signal that ended it). Loaded without the CLI's command table
 * (cli/bin.js goes straight here): the harness starts one per server, on every session.
 */
import { spawn } from 'node:child_process'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { askDaemon, type DaemonLink } from './daemon-client.ts'
import { MAX_LINE_BYTES, readLines } from './line-reader.ts'
import { Relay } from './relay.ts'
import { TrafficLog, trafficEntry } from './traffic-log.ts'

export interface ProxyArgs {
  readonly server: string
  readonly harness?: string
  readonly url?: string
  readonly timeoutS?: number
  readonly command: string
  readonly args: readonly string[]
}

const USAGE = 'usage: svc mcp-proxy --server <id> [--harness <id>] [--url <daemon url>] [--timeout <seconds>] -- <command> [args…]'

/** Parses the relay's arguments; throws a usage message naming what is wrong. */
export function parseProxyArgs(argv: readonly string[]): ProxyArgs {
  const sep = argv.indexOf('--')
  if (sep < 0 || sep + 1 >= argv.length) throw new Error(`no server command after \`--\`\n${USAGE}`)
  const opts: Record<string, string> = {}
  for (let i = 0; i < sep; i += 2) {
    const flag = argv[i]!
    if (!['--server', '--harness', '--url', '--timeout'].includes(flag) || i + 1 >= sep) throw new Error(`unexpected argument "${flag}"\n${USAGE}`)
    opts[flag.slice(2)] = argv[i + 1]!
  }
  if (!opts.server || !/^[A-Za-z0-9_.-]{1,128}$/.test(opts.server)) throw new Error(`--server must name the server (letters, digits, _ . -)\n${USAGE}`)
  const timeoutS = opts.timeout === undefined ? undefined : Number(opts.timeout)
  if (timeoutS !== undefined && !(timeoutS > 0 && timeoutS <= 60)) throw new Error(`--timeout must be a number of seconds between 0 and 60\n${USAGE}`)
  return {
    server: opts.server,
    ...(opts.harness ? { harness: opts.harness } : {}),
    ...(opts.url ? { url: opts.url } : {}),
    ...(timeoutS ? { timeoutS } : {}),
    command: argv[sep + 1]!,
    args: argv.slice(sep + 2),
  }
}

/** Runs the relay until the child exits; resolves the exit code (after re-raising a fatal signal, if any). */
export async function runProxy(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let opts: ProxyArgs
  try {
    opts = parseProxyArgs(argv)
  } catch (err) {
    process.stderr.write(`svc mcp-proxy: ${(err as Error).message}\n`)
    return 2
  }
  const link: DaemonLink = {
    url: opts.url ?? env.SVC_URL ?? 'http://127.0.0.1:7878',
    svcHome: env.SVC_HOME || join(homedir(), '.svc'),
    timeoutMs: (opts.timeoutS ?? Number(env.SVC_MCP_PROXY_TIMEOUT ?? 5)) * 1000,
  }
  const identity = { command: opts.command, args: opts.args, cwd: process.cwd() }
  const server = { server: opts.server, ...(opts.harness ? { harness: opts.harness } : {}), identity }
  const traffic = new TrafficLog({
    post: (batch) => askDaemon(link, 'log', { ...server, ...batch }),
    warn: (message) => process.stderr.write(`svc mcp-proxy: ${message}\n`),
  })
  const child = spawn(opts.command, [...opts.args], { stdio: ['pipe', 'pipe', 'inherit'] })
  const relay = new Relay(opts.server, {
    toClient: (line) => process.stdout.write(`${line}\n`),
    toServer: (line) => {
      if (child.stdin.writable) child.stdin.write(`${line}\n`)
    },
    ask: (event, body) => askDaemon(link, event, { ...server, ...body }),
    warn: (message) => process.stderr.write(`svc mcp-proxy: ${message}\n`),
    record: (from, line, message, refused) => traffic.add(trafficEntry(from, line, message, refused)),
  })
  child.stdin.on('error', () => undefined)
  const maxLine = Number(env.SVC_MCP_PROXY_MAX_LINE) > 0 ? Number(env.SVC_MCP_PROXY_MAX_LINE) : MAX_LINE_BYTES
  readLines(process.stdin, maxLine, (line) => relay.fromClient(line), (bytes) => relay.overlong('client', bytes), () => child.stdin.end())
  readLines(child.stdout, maxLine, (line) => relay.fromServer(line), (bytes) => relay.overlong('server', bytes))
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  for (const s of signals) process.on(s, forward)
  return new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`svc mcp-proxy: cannot start ${opts.command}: ${err.message}\n`)
      resolve(127)
    })
    child.on('close', async (code, signal) => {
      for (const s of signals) process.off(s, forward)
      // The last batch of the record, waited for briefly: a slow daemon must not hold the exit.
      await Promise.race([traffic.flush(), new Promise((r) => setTimeout(r, 1000).unref())])
      if (signal) {
        process.kill(process.pid, signal)
        return
      }
      // Let writes already queued (a denial, a held page) reach the client before the exit.
      process.stdout.write('', () => resolve(code ?? 1))
    })
  })
}
