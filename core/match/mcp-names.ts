/**
 * The policy's canonical MCP tool names. Every harness spells MCP calls its own way; its folder maps
 * them onto `mcp__<server>__<tool>`, the one spelling gates, pins and the ledger use.
 */

/**
 * The server name a harness puts in an MCP tool name when its payload does not say which server it is
 * (some payloads give only the server's url or command): the MCP pin plugin resolves it from the configs.
 */
export const UNRESOLVED_MCP_SERVER = '?'

/** The canonical MCP tool name every gate matches: `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`
}
