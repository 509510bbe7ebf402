/**
 * Normalises the tool input every harness sends: file paths of file tools (canonicalised), URLs of
 * fetch tools, and the MCP server/tool of `mcp__<server>__<tool>` calls.
 *
 * Tools the policy does not know (MCP tools above all) nest their arguments in any shape, so the whole
 * input is walked (bounded): a string under a path-like key (`path`, `destination`, `files[]`, ...) is a
 * path, and in fetch-like tools and MCP tools every URL in any string is a destination (Gemini's
 * `web_fetch` takes its URLs inside a `prompt`).
 *
 * This is the only pass that turns tool-input strings into canonical paths (lexical, `~`, symlinks); harness
 * folders only map their fields onto the policy's vocabulary, and shell commands are analysed separately.
 */
import { findUrls, looksLikePatch, parseCallUrl, patchedPaths, pathSpellings, STAGE, type CallUrl, type EnginePlugin, type EvalRequest } from '../../core/index.ts'

/** Input fields that name a file, across harnesses (Claude `file_path`, Gemini `absolute_path`, ...). */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path', 'absolute_path', 'filePath', 'target_file', 'dir_path']
const URL_FIELDS = ['url', 'uri']
const MCP_NAME = /^mcp__([^_][\s\S]*?)__([\s\S]+)$/
/** Keys whose string (or string-array) values are paths, in any nesting. */
const PATH_KEY = /^(?:.*[_-])?(?:path|paths|file|files|filename|filenames|dir|dirs|directory|destination|dest|source|src|target|to|from)$|(?:Path|Paths|File|Files|Dir|Directory|Destination|Source|Target)$/
/** Tools whose every string may carry a URL the tool fetches. */
const FETCH_TOOL = /fetch|browse|navigate|url|http|request|web|curl|download|scrape|crawl|open/i
/** Keys that carry a patch to apply (not `content`: a file that merely contains a diff is data). */
const PATCH_KEY = /^(command|patch|input|diff|changes|patches)$/
const MAX_DEPTH = 6
const MAX_STRINGS = 256
const MAX_STRING = 64 * 1024

const plugin: EnginePlugin = {
  name: 'normalise:tool-input',
  apply({ hooks }) {
    hooks.preEvaluate.tap({ name: 'normalise:tool-input', stage: STAGE.FIRST }, (request, ctx): EvalRequest => {
      const input = request.input
      const paths = new Set<string>(request.paths)
      // A top-level path field is met again by the walk below: resolving its symlinks (lstat per component) once is enough.
      const spelled = new Set<string>()
      const addPath = (raw: string): void => {
        if (spelled.has(raw)) return
        spelled.add(raw)
        for (const p of pathSpellings(raw, request.cwd, ctx.home)) paths.add(p)
      }
      // Top-level path fields first and unconditionally: the walk below is bounded, and a payload must not
      // hide its real target behind hundreds of earlier strings.
      for (const field of PATH_FIELDS) {
        const v = input[field]
        if (typeof v === 'string' && v.length > 0) addPath(v)
      }
      const urls: CallUrl[] = [...request.urls]
      const addUrl = (u: CallUrl | undefined): void => {
        if (u && !urls.some((o) => o.raw === u.raw)) urls.push(u)
      }
      for (const field of URL_FIELDS) {
        const v = input[field]
        addUrl(typeof v === 'string' ? parseCallUrl(v) : undefined)
      }
      const mcpName = MCP_NAME.exec(request.tool)
      const mcp = request.mcp ?? (mcpName ? { server: mcpName[1]!, tool: mcpName[2]! } : undefined)
      const scanUrls = mcp !== undefined || FETCH_TOOL.test(request.tool)
      walkStrings(input, (key, value) => {
        if (key !== undefined && PATH_KEY.test(key) && value.length > 0 && !value.includes('://') && !value.includes('\n')) {
          addPath(value)
        }
        if (scanUrls || (key !== undefined && URL_FIELDS.includes(key.toLowerCase()))) for (const u of findUrls(value)) addUrl(u)
        // A patch handed to any tool (Codex apply_patch through /v1/gates/check, an MCP patch tool) changes its files.
        if (key !== undefined && PATCH_KEY.test(key) && !(key === 'command' && request.tool === 'Bash') && looksLikePatch(value)) {
          for (const raw of patchedPaths(value)) addPath(raw)
        }
      })
      return { ...request, paths: [...paths], urls, ...(mcp ? { mcp } : {}) }
    })
  },
}

/** Calls `visit(key, string)` for every string in `value` (array items inherit their array's key), bounded. */
function walkStrings(value: unknown, visit: (key: string | undefined, text: string) => void): void {
  let seen = 0
  const walk = (v: unknown, key: string | undefined, depth: number): void => {
    if (seen >= MAX_STRINGS || depth > MAX_DEPTH) return
    if (typeof v === 'string') {
      seen++
      visit(key, v.length > MAX_STRING ? v.slice(0, MAX_STRING) : v)
    } else if (Array.isArray(v)) {
      for (const item of v) walk(item, key, depth + 1)
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) walk(item, k, depth + 1)
    }
  }
  walk(value, undefined, 0)
}

export default plugin
