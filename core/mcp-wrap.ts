/**
 * The wrapped form of an MCP server entry: `command` becomes svc and `args` become
 * `mcp-proxy --server <name> [--harness <id>] -- <original command> <original args…>`, so the harness starts the
 * svc relay, which starts the real server. Pure: the editing of config files lives with the CLI (cli/mcp-wrap/).
 * Config readers (harnesses/kit) and runtime identities (a harness naming the command it starts) unwrap it, so
 * a wrapped server keeps the identity (and the pin) it had unwrapped.
 */
export const PROXY_SUBCOMMAND = 'mcp-proxy'

export interface WrappedCommand {
  readonly server: string
  readonly harness?: string
  readonly command: string
  readonly args: readonly string[]
}

/** The args of the wrapped entry (its command is the svc executable). */
export function wrapArgs(server: string, harness: string | undefined, command: string, args: readonly string[]): string[] {
  return [PROXY_SUBCOMMAND, '--server', server, ...(harness ? ['--harness', harness] : []), '--', command, ...args]
}

/** The real server inside a wrapped entry's args, or undefined when the args are not svc's wrapper. */
export function unwrapArgs(args: readonly string[] | undefined): WrappedCommand | undefined {
  if (!args || args[0] !== PROXY_SUBCOMMAND) return undefined
  const sep = args.indexOf('--')
  if (sep < 0 || sep + 1 >= args.length) return undefined
  let server: string | undefined
  let harness: string | undefined
  for (let i = 1; i < sep; i += 2) {
    if (args[i] === '--server') server = args[i + 1]
    else if (args[i] === '--harness') harness = args[i + 1]
    else return undefined
  }
  if (!server) return undefined
  return { server, ...(harness ? { harness } : {}), command: args[sep + 1]!, args: args.slice(sep + 2) }
}
