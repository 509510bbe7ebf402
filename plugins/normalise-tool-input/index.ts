/**
 * Normalises the tool input every harness sends: file paths of file tools (canonicalised), URLs of
 * fetch tools, and the MCP server/tool of `mcp__<server>__<tool>` calls.
 *
 * Tools the policy does not know (MCP tools above all) nest their arguments in any shape, so the whole
 * input is walked: a string under a path-like key (`path`, `destination`, `files[]`, ...) is a path, and in
 * fetch-like tools and MCP tools every URL in any string is a destination (Gemini's `web_fetch` takes its
 * URLs inside a `prompt`). The walk has bounds (nesting, strings, paths, URLs, patch targets) so a payload
 * cannot stall the daemon; whatever lies beyond them is not skipped silently: the request is marked
 * `uncovered` and the engine refuses it in firewall mode, naming the bound.
 *
 * This is the only pass that turns tool-input strings into canonical paths (lexical, `~`, symlinks); harness
 * folders only map their fields onto the policy's vocabulary, and shell commands are analysed separately.
 */
import {
  findUrls,
  looksLikePatch,
  MAX_PATCH_TARGETS,
  parseCallUrl,
  patchedPaths,
  pathSpellings,
  STAGE,
  type CallUrl,
  type EnginePlugin,
  type EvalRequest,
} from '../../core/index.ts'

/** Input fields that name a file, across harnesses (Claude `file_path`, Gemini `absolute_path`, ...). */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path', 'absolute_path', 'filePath', 'target_file', 'dir_path']
const URL_FIELDS = ['url', 'uri']
const MCP_NAME = /^mcp__([^_][\s\S]*?)__([\s\S]+)$/
/** Keys whose string (or string-array) values are paths, in any nesting. */
const PATH_KEY =
  /^(?:.*[_-])?(?:path|paths|file|files|filename|filenames|dir|dirs|directory|destination|dest|source|src|target|to|from)$|(?:Path|Paths|File|Files|Dir|Directory|Destination|Source|Target)$/
/** Tools whose every string may carry a URL the tool fetches. */
const FETCH_TOOL = /fetch|browse|navigate|url|http|request|web|curl|download|scrape|crawl|open/i
/** Keys that carry a patch to apply (not `content`: a file that merely contains a diff is data). */
const PATCH_KEY = /^(command|patch|input|diff|changes|patches)$/

/**
 * The walk's bounds. Strings are read whole (the route's body limit bounds them); what a harness sends
 * stays far inside these, and a payload past one is refused rather than half read.
 */
export const WALK_BOUNDS = {
  /** Levels of objects and arrays below the input itself. */
  depth: 64,
  /** Strings visited. */
  strings: 20_000,
  /** Distinct path strings canonicalised (each costs an lstat per component). */
  paths: 2_000,
  /** Distinct URLs collected. */
  urls: 2_000,
  /** Longest path string (PATH_MAX): a longer one names no file a tool can open. */
  pathLength: 4096,
} as const

const plugin: EnginePlugin = {
  name: 'normalise:tool-input',
  apply({ hooks }) {
    hooks.preEvaluate.tap({ name: 'normalise:tool-input', stage: STAGE.FIRST }, (request, ctx): EvalRequest => {
      const input = request.input
      let uncovered: string | undefined
      const over = (why: string): void => {
        uncovered ??= why
      }
      const paths = new Set<string>(request.paths)
      // A top-level path field is met again by the walk below: resolving its symlinks (lstat per component) once is enough.
      const spelled = new Set<string>()
      const addPath = (raw: string): void => {
        if (spelled.has(raw)) return
        if (raw.length > WALK_BOUNDS.pathLength) return over(`a path of ${raw.length} characters, over ${WALK_BOUNDS.pathLength}`)
        if (spelled.size >= WALK_BOUNDS.paths) return over(`more than ${WALK_BOUNDS.paths} paths`)
        spelled.add(raw)
        for (const p of pathSpellings(raw, request.cwd, ctx.home)) paths.add(p)
      }
      // Top-level path fields first: they are what a file tool opens, whatever else the input holds.
      for (const field of PATH_FIELDS) {
        const v = input[field]
        if (typeof v === 'string' && v.length > 0) addPath(v)
      }
      const urls: CallUrl[] = [...request.urls]
      const seenUrls = new Set(urls.map((u) => u.raw))
      const addUrl = (u: CallUrl | undefined): void => {
        if (!u || seenUrls.has(u.raw)) return
        if (seenUrls.size >= WALK_BOUNDS.urls) return over(`more than ${WALK_BOUNDS.urls} URLs`)
        seenUrls.add(u.raw)
        urls.push(u)
      }
      for (const field of URL_FIELDS) {
        const v = input[field]
        addUrl(typeof v === 'string' ? parseCallUrl(v) : undefined)
      }
      const mcpName = MCP_NAME.exec(request.tool)
      const mcp = request.mcp ?? (mcpName ? { server: mcpName[1]!, tool: mcpName[2]! } : undefined)
      const scanUrls = mcp !== undefined || FETCH_TOOL.test(request.tool)
      const walked = walkStrings(input, (key, value) => {
        if (key !== undefined && PATH_KEY.test(key) && value.length > 0 && !value.includes('://') && !value.includes('\n')) addPath(value)
        if (scanUrls || (key !== undefined && URL_FIELDS.includes(key.toLowerCase()))) for (const u of findUrls(value)) addUrl(u)
        // A patch handed to any tool (Codex apply_patch through /v1/gates/check, an MCP patch tool) changes its files.
        if (key !== undefined && PATCH_KEY.test(key) && !(key === 'command' && request.tool === 'Bash') && looksLikePatch(value)) {
          const targets = patchedPaths(value)
          if (targets.length >= MAX_PATCH_TARGETS) over(`a patch naming ${MAX_PATCH_TARGETS} or more files`)
          for (const raw of targets) addPath(raw)
        }
      })
      if (walked) over(walked)
      return { ...request, paths: [...paths], urls, ...(mcp ? { mcp } : {}), ...(uncovered ? { uncovered } : {}) }
    })
  },
}

/**
 * Calls `visit(key, string)` for every string in `value` (array items inherit their array's key) within
 * WALK_BOUNDS; returns which bound was passed, or undefined when every string was visited.
 */
function walkStrings(value: unknown, visit: (key: string | undefined, text: string) => void): string | undefined {
  let seen = 0
  let passed: string | undefined
  const walk = (v: unknown, key: string | undefined, depth: number): void => {
    if (passed !== undefined) return
    if (typeof v === 'string') {
      if (++seen > WALK_BOUNDS.strings) passed = `more than ${WALK_BOUNDS.strings} strings`
      else visit(key, v)
    } else if (typeof v === 'object' && v !== null) {
      if (depth >= WALK_BOUNDS.depth) passed = `nested more than ${WALK_BOUNDS.depth} levels deep`
      else if (Array.isArray(v)) for (const item of v) walk(item, key, depth + 1)
      else for (const [k, item] of Object.entries(v)) walk(item, k, depth + 1)
    }
  }
  walk(value, undefined, 0)
  return passed
}

export default plugin
