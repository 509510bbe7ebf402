/**
 * Edit-preserving JSONC edits: our entries are spliced in as text after the last element of their array
 * (or the last property of their object), indented like their neighbours, and cut out again as exactly
 * that text. Nothing else in the file is reformatted, so comments, key order and layout survive.
 */
import { isDeepStrictEqual } from 'node:util'
import { createScanner, findNodeAtLocation, getNodeValue, parseTree } from 'jsonc-parser'
import type { JSONPath, Node, ParseError } from 'jsonc-parser'

interface Style {
  readonly eol: string
  readonly unit: string
}

/** Indent unit and line ending as the file already uses them (2 spaces and `\n` for new files). */
function detectStyle(text: string): Style {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const indent = /^([ \t]+)["{[\]}]/m.exec(text)?.[1] ?? '  '
  return { eol, unit: indent.startsWith('\t') ? '\t' : indent }
}

// jsonc-parser's SyntaxKind is a const enum, which type stripping cannot inline; its stable values:
const COMMA = 5
const TRIVIA = new Set([12, 13, 14, 15])
const EOF = 17

function tree(text: string): Node | undefined {
  return parseTree(text, [], { allowTrailingComma: true })
}

// jsonc-parser builds objects without a prototype; plain copies compare equal to our values.
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value))
}

/** The value at `pointer`, or undefined (comments and trailing commas allowed). */
export function valueAt(text: string, pointer: readonly string[]): unknown {
  const root = tree(text)
  if (!root) return undefined
  const node = pointer.length === 0 ? root : findNodeAtLocation(root, pointer as JSONPath)
  return node ? plain(getNodeValue(node)) : undefined
}

/** Parses JSONC text strictly enough to refuse writing into a broken file. */
export function parseJsoncStrict(text: string, path: string): unknown {
  const errors: ParseError[] = []
  const root = parseTree(text, errors, { allowTrailingComma: true })
  if (errors.length > 0 || !root) throw new Error(`${path} is not valid JSON/JSONC (error at offset ${errors[0]?.offset ?? 0}); fix it before installing`)
  return plain(getNodeValue(root))
}

function lineIndent(text: string, offset: number): { indent: string; ownLine: boolean } {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  const prefix = text.slice(start, offset)
  const indent = /^[ \t]*/.exec(prefix)?.[0] ?? ''
  return { indent, ownLine: indent.length === prefix.length }
}

function render(value: unknown, indent: string, style: Style): string {
  return JSON.stringify(value, null, style.unit)
    .split('\n')
    .join(style.eol + indent)
}

/** Offset just after a trailing comma that follows `from` inside its container, if there is one. */
function trailingCommaEnd(text: string, from: number, to: number): number | undefined {
  const scanner = createScanner(text.slice(from, to), false)
  for (let kind: number = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (TRIVIA.has(kind)) continue
    return kind === COMMA ? from + scanner.getTokenOffset() + scanner.getTokenLength() : undefined
  }
  return undefined
}

/** Inserts `member` (already rendered, e.g. `"key": value` or a value) as the last member of `container`. */
function insertMember(text: string, container: Node, member: (indent: string) => string, style: Style): string {
  const children = container.children ?? []
  const last = children[children.length - 1]
  if (!last) {
    const outer = lineIndent(text, container.offset).indent
    const inner = outer + style.unit
    const close = container.offset + container.length - 1
    // Keep whatever the empty container held (a comment): insert after it, on lines of our own.
    const head = text.slice(0, close).trimEnd()
    return `${head}${style.eol}${inner}${member(inner)}${style.eol}${outer}${text.slice(close)}`
  }
  const lastEnd = last.offset + last.length
  const { indent, ownLine } = lineIndent(text, last.offset)
  const comma = trailingCommaEnd(text, lastEnd, container.offset + container.length - 1)
  const at = comma ?? lastEnd
  const lead = comma === undefined ? ',' : ''
  const piece = ownLine ? `${lead}${style.eol}${indent}${member(indent)}` : `${lead} ${member('').replace(/\s*\n\s*/g, ' ')}`
  return text.slice(0, at) + piece + text.slice(at)
}

/** Appends `value` to the array at `pointer`, creating missing objects and the array itself. */
export function appendToArray(text: string, pointer: readonly string[], value: unknown): string {
  const style = detectStyle(text)
  const root = tree(text)
  if (root?.type !== 'object') throw new Error('the config file is not a JSON object; refusing to change it')
  const { node, depth } = deepestOn(root, pointer)
  if (depth === pointer.length) {
    if (node.type !== 'array') throw new Error(`/${pointer.join('/')} exists but is not an array; refusing to change it`)
    return insertMember(text, node, (indent) => render(value, indent, style), style)
  }
  if (node.type !== 'object') throw new Error(`/${pointer.slice(0, depth).join('/')} exists but is not an object; refusing to change it`)
  let built: unknown = [value]
  for (let i = pointer.length - 1; i > depth; i--) built = { [pointer[i]!]: built }
  const key = pointer[depth]!
  return insertMember(text, node, (indent) => `${JSON.stringify(key)}: ${render(built, indent, style)}`, style)
}

/** Index of the first element of the array at `pointer` equal to `value`, or -1. */
export function indexOfEqual(text: string, pointer: readonly string[], value: unknown): number {
  const current = valueAt(text, pointer)
  if (!Array.isArray(current)) return -1
  const wanted = plain(value)
  return current.findIndex((item) => isDeepStrictEqual(item, wanted))
}

/** Cuts a member (array element or object property node) together with the separator before it. */
function cutMember(text: string, container: Node, index: number): string {
  const children = container.children ?? []
  const member = children[index]!
  const end = member.offset + member.length
  if (index > 0) {
    const previous = children[index - 1]!
    return text.slice(0, previous.offset + previous.length) + text.slice(end)
  }
  const next = children[1]
  if (next) return text.slice(0, member.offset) + text.slice(next.offset)
  const open = container.offset + 1
  const close = container.offset + container.length - 1
  const before = text.slice(open, member.offset)
  // The only member: leave the container empty as it was; a comment inside it stays, on its own line.
  if (before.trim() === '') return text.slice(0, open) + text.slice(close)
  const keep = open + before.trimEnd().length
  const after = text.slice(end, close)
  return text.slice(0, keep) + (after.trim() === '' ? after : '') + text.slice(after.trim() === '' ? close : end)
}

/**
 * Removes element `index` of the array at `pointer`; an array left empty is removed, and so is a parent
 * object left empty by that (harness schemas reject empty hook lists).
 */
export function removeAt(text: string, pointer: readonly string[], index: number): string {
  const root = tree(text)
  const array = root && findNodeAtLocation(root, pointer as JSONPath)
  if (array?.type !== 'array') return text
  return pruneEmptyParents(cutMember(text, array, index), pointer, pointer.length)
}

/** Removes the containers on `pointer` (from `depth` up) that an edit left empty, unless one holds a comment. */
function pruneEmptyParents(text: string, pointer: readonly string[], depth: number): string {
  let out = text
  for (; depth > 0; depth--) {
    const value = valueAt(out, pointer.slice(0, depth))
    const empty = (Array.isArray(value) && value.length === 0) || (isPlainObject(value) && Object.keys(value).length === 0)
    if (!empty) break
    const current = tree(out)!
    // An empty container that holds a comment is the user's; it stays.
    const emptied = findNodeAtLocation(current, pointer.slice(0, depth) as JSONPath)
    if (!emptied || out.slice(emptied.offset + 1, emptied.offset + emptied.length - 1).trim() !== '') break
    const parent = depth === 1 ? current : findNodeAtLocation(current, pointer.slice(0, depth - 1) as JSONPath)
    if (parent?.type !== 'object') break
    const at = (parent.children ?? []).findIndex((p) => p.children?.[0]?.value === pointer[depth - 1])
    if (at < 0) break
    out = cutMember(out, parent, at)
  }
  return out
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The deepest existing node on `pointer` and how many of its segments exist. */
function deepestOn(root: Node, pointer: readonly string[]): { node: Node; depth: number } {
  let node = root
  let depth = 0
  while (depth < pointer.length) {
    const next = findNodeAtLocation(node, [pointer[depth]!])
    if (!next) break
    node = next
    depth++
  }
  return { node, depth }
}

/**
 * Puts `value` at `pointer` (a setting, not an array element): the existing value's text is replaced in
 * place, or the key is added (with any missing parent objects) as the last member of its object.
 */
export function setAt(text: string, pointer: readonly string[], value: unknown): string {
  const style = detectStyle(text)
  const root = tree(text)
  if (root?.type !== 'object') throw new Error('the config file is not a JSON object; refusing to change it')
  const { node, depth } = deepestOn(root, pointer)
  if (depth === pointer.length) {
    const { indent } = lineIndent(text, (node.parent ?? node).offset)
    return text.slice(0, node.offset) + render(value, indent, style) + text.slice(node.offset + node.length)
  }
  if (node.type !== 'object') throw new Error(`/${pointer.slice(0, depth).join('/')} exists but is not an object; refusing to change it`)
  let built: unknown = value
  for (let i = pointer.length - 1; i > depth; i--) built = { [pointer[i]!]: built }
  const key = pointer[depth]!
  return insertMember(text, node, (indent) => `${JSON.stringify(key)}: ${render(built, indent, style)}`, style)
}

/** Removes the property at `pointer`; parent objects left empty by that are removed as in `removeAt`. */
export function deleteAt(text: string, pointer: readonly string[]): string {
  const root = tree(text)
  if (!root || pointer.length === 0) return text
  const parent = pointer.length === 1 ? root : findNodeAtLocation(root, pointer.slice(0, -1) as JSONPath)
  if (parent?.type !== 'object') return text
  const at = (parent.children ?? []).findIndex((p) => p.children?.[0]?.value === pointer[pointer.length - 1])
  if (at < 0) return text
  return pruneEmptyParents(cutMember(text, parent, at), pointer, pointer.length - 1)
}
