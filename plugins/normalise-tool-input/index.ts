/**
 * Normalises the tool input every harness sends: file paths of file tools (canonicalised), URLs of
 * fetch tools, and the MCP server/tool of `mcp__<server>__<tool>` calls.
 */
import { parseCallUrl, pathSpellings, STAGE, type CallUrl, type EnginePlugin, type EvalRequest } from '../../core/index.ts'

/** Input fields that name a file, across harnesses (Claude `file_path`, Gemini `absolute_path`, ...). */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path', 'absolute_path', 'filePath', 'target_file', 'dir_path']
const URL_FIELDS = ['url', 'uri']
const MCP_NAME = /^mcp__([^_][\s\S]*?)__([\s\S]+)$/

const plugin: EnginePlugin = {
  name: 'normalise:tool-input',
  apply({ hooks }) {
    hooks.preEvaluate.tap({ name: 'normalise:tool-input', stage: STAGE.FIRST }, (request, ctx): EvalRequest => {
      const input = request.input
      const paths: string[] = [...request.paths]
      for (const field of PATH_FIELDS) {
        const v = input[field]
        if (typeof v === 'string' && v.length > 0) paths.push(...pathSpellings(v, request.cwd, ctx.home))
      }
      const urls: CallUrl[] = [...request.urls]
      for (const field of URL_FIELDS) {
        const v = input[field]
        const parsed = typeof v === 'string' ? parseCallUrl(v) : undefined
        if (parsed) urls.push(parsed)
      }
      const mcpName = MCP_NAME.exec(request.tool)
      const mcp = request.mcp ?? (mcpName ? { server: mcpName[1]!, tool: mcpName[2]! } : undefined)
      return { ...request, paths, urls, ...(mcp ? { mcp } : {}) }
    })
  },
}

export default plugin
