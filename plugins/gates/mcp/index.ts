/**
 * `mcp`: the MCP server and tool of a call (from `mcp__<server>__<tool>` names or harness metadata), by glob.
 */
import { compileGlob, defineGateKind } from '../../../core/index.ts'

interface Value {
  server?: string
  tool?: string
}

export default defineGateKind<Value>({
  kind: 'mcp',
  description: 'Matches MCP calls by server and tool name globs (given fields must hold).',
  schema: { type: 'object', additionalProperties: false, minProperties: 1, properties: { server: { type: 'string', minLength: 1 }, tool: { type: 'string', minLength: 1 } } },
  compile(value) {
    const server = value.server === undefined ? undefined : compileGlob(value.server, { pathMode: false })
    const tool = value.tool === undefined ? undefined : compileGlob(value.tool, { pathMode: false })
    return function mcpMatches(request) {
      const mcp = request.mcp
      if (!mcp) return undefined
      if (server && !server.test(mcp.server)) return undefined
      if (tool && !tool.test(mcp.tool)) return undefined
      return `mcp ${mcp.server}/${mcp.tool}`
    }
  },
  index: () => ({ facets: ['mcp'] }),
})
