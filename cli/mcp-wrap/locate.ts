/**
 * Where a stdio MCP server entry's `command` and `args` values sit in a config file's text, so wrapping and
 * unwrapping splice exactly those bytes and nothing else (comments, layout and key order survive).
 * JSON(C): `mcpServers` at the top (Claude Code, Gemini CLI, Cursor) and Claude Code's `projects.*.mcpServers`,
 * or the map a harness names in its location's `mcpShape` (OpenCode's `mcp`, whose `command` is one argv array).
 * TOML (Codex): `[mcp_servers.<name>]` tables with one-line `command` and a (possibly multi-line) `args` array.
 */
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser'
import type { McpShape } from '../../harness-contract/index.ts'

export interface Span {
  readonly start: number
  readonly end: number
}

export interface LocatedServer {
  readonly name: string
  /** Where the entry is (JSON: the path to its object; TOML: `mcp_servers`, name). */
  readonly pointer: readonly string[]
  /** A remote server (url) or one without a command: never wrapped. */
  readonly remote: boolean
  readonly command?: Span
  readonly args?: Span
  readonly commandValue?: string
  readonly argsValue?: readonly string[]
  /** `command` is one argv array: its span is the whole array, `commandValue` its first item, `argsValue` the rest. */
  readonly argv?: boolean
}

const allStrings = (node: Node | undefined): string[] | undefined =>
  node?.type === 'array' && node.children?.every((c) => c.type === 'string') ? node.children.map((c) => String(c.value)) : undefined

function jsonServers(root: Node, base: readonly string[], argv: boolean, out: LocatedServer[]): void {
  const map = findNodeAtLocation(root, [...base])
  if (map?.type !== 'object') return
  for (const prop of map.children ?? []) {
    const [keyNode, value] = prop.children ?? []
    if (!keyNode || value?.type !== 'object') continue
    const name = String(keyNode.value)
    const field = (key: string) => value.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1]
    const command = field('command')
    const remote = field('url') !== undefined || field('httpUrl') !== undefined
    const at = (n: Node): Span => ({ start: n.offset, end: n.offset + n.length })
    if (argv) {
      const [program, ...rest] = allStrings(command) ?? []
      out.push({
        name,
        pointer: [...base, name],
        remote: remote || !program,
        argv: true,
        ...(program && command ? { command: at(command), commandValue: program, argsValue: rest } : {}),
      })
      continue
    }
    const args = field('args')
    const argsValue = allStrings(args)
    out.push({
      name,
      pointer: [...base, name],
      remote: remote || command?.type !== 'string',
      ...(command?.type === 'string' ? { command: at(command), commandValue: String(command.value) } : {}),
      ...(args ? { args: at(args) } : {}),
      ...(argsValue ? { argsValue } : {}),
    })
  }
}

/** The servers of a JSON(C) config: `mcpServers` (and Claude Code's per-project maps) unless `shape` names another map. */
export function locateJson(text: string, shape?: McpShape): LocatedServer[] {
  const root = parseTree(text, [], { allowTrailingComma: true })
  if (!root) return []
  const out: LocatedServer[] = []
  if (shape) {
    jsonServers(root, [shape.map], shape.command === 'argv', out)
    return out
  }
  jsonServers(root, ['mcpServers'], false, out)
  const projects = findNodeAtLocation(root, ['projects'])
  for (const prop of projects?.type === 'object' ? (projects.children ?? []) : []) jsonServers(root, ['projects', String(prop.children?.[0]?.value), 'mcpServers'], false, out)
  return out
}

/** The end of a TOML value starting at `from` (a string or a bracketed array, strings inside respected). */
function tomlValueEnd(text: string, from: number): number {
  let depth = 0
  for (let i = from; i < text.length; i++) {
    const c = text[i]
    if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i)
      const close = triple
        ? text.indexOf(c.repeat(3), i + 3) + 3
        : (() => {
            for (let j = i + 1; j < text.length; j++) {
              if (c === '"' && text[j] === '\\') j++
              else if (text[j] === c) return j + 1
            }
            return text.length
          })()
      i = close - 1
      if (depth === 0) return close
    } else if (c === '[') depth++
    else if (c === ']') {
      depth--
      if (depth === 0) return i + 1
    } else if (c === '#' && depth > 0) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i) - 1
    else if (depth === 0 && (c === '\n' || c === '#')) return i
  }
  return text.length
}

const HEADER = /^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)[ \t]*\][ \t]*(#.*)?$/gm

export function locateToml(text: string, parse: (text: string) => Record<string, unknown>): LocatedServer[] {
  const doc = parse(text)
  const tables = (doc.mcp_servers ?? {}) as Record<string, Record<string, unknown>>
  const out: LocatedServer[] = []
  for (const m of text.matchAll(HEADER)) {
    const raw = m[1]!
    const name = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.startsWith("'") ? raw.slice(1, -1) : raw
    const bodyStart = m.index + m[0].length
    const next = /^[ \t]*\[/m.exec(text.slice(bodyStart))
    const bodyEnd = next ? bodyStart + next.index : text.length
    const find = (key: string): Span | undefined => {
      const k = new RegExp(`^[ \\t]*${key}[ \\t]*=[ \\t]*`, 'm').exec(text.slice(bodyStart, bodyEnd))
      if (!k) return undefined
      const start = bodyStart + k.index + k[0].length
      return { start, end: tomlValueEnd(text, start) }
    }
    const table = tables[name] ?? {}
    const command = find('command')
    const args = find('args')
    out.push({
      name,
      pointer: ['mcp_servers', name],
      remote: typeof table.command !== 'string' || table.url !== undefined,
      ...(command && typeof table.command === 'string' ? { command, commandValue: table.command } : {}),
      ...(args ? { args } : {}),
      ...(Array.isArray(table.args) ? { argsValue: table.args.map(String) } : {}),
    })
  }
  return out
}
