/**
 * `svc mcp-proxy`, as `svc --help` and `svc help mcp-proxy` show it. The relay itself (cli/mcp-proxy/main.ts) runs
 * before any command table is built, from cli/bin.js and from main(): a harness starts one per MCP server, on
 * every session, so it must not pay for commander and the table. This command only carries the help.
 */
import { Command } from 'commander'

const MCP_PROXY_SUMMARY =
  'the relay a wrapped MCP server entry runs: starts the server, gates its tools/call, resources/read and prompts/get through the daemon, pins its tool list, logs the rest'

export function makeMcpProxyCommand(): Command {
  return new Command('mcp-proxy')
    .description(MCP_PROXY_SUMMARY)
    .usage('--server <id> [--harness <id>] [--url <daemon url>] [--timeout <seconds>] -- <command> [args…]')
    .addHelpText('after', '\n`svc mcp wrap` writes this into harness configs; see the README, "MCP proxy".')
}

/** Whether `argv` runs the relay (anything but asking for its help). */
export function runsProxy(argv: readonly string[]): boolean {
  return argv[0] === 'mcp-proxy' && argv[1] !== '--help' && argv[1] !== '-h'
}
