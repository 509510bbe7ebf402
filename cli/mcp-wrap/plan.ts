/**
 * Plans wrapping and unwrapping of MCP server entries: every change is computed (and checked by parsing the
 * result) before anything is written. A wrap replaces the bytes of `command` and `args` (or inserts `args` right
 * after `command`) and records what it replaced, so unwrap puts back exactly those bytes: byte-exact when the
 * user changed nothing in between, and refused (nothing written) when the wrapped bytes were edited.
 */
import { isDeepStrictEqual } from 'node:util'
import { createTwoFilesPatch } from 'diff'
import { parseTree, type ParseError } from 'jsonc-parser'
import { parse as parseToml } from 'smol-toml'
import { unwrapArgs, wrapArgs } from '../../core/index.ts'
import { CliError } from '../io.ts'
import type { McpShape } from '../../harness-contract/index.ts'
import { locateJson, locateToml, type LocatedServer } from './locate.ts'

export interface McpConfigFile {
  readonly path: string
  readonly format: 'jsonc' | 'toml'
  readonly harness: string
  readonly text: string
  /** The harness's `mcpShape` for this file, when not the usual `mcpServers` map. */
  readonly shape?: McpShape
}

type Anchor = 'commandStart' | 'commandEnd' | 'argsStart' | 'argsEnd'

export interface WrapEdit {
  readonly from: Anchor
  /** Where the replaced text ends in the unwrapped entry, and (when args were inserted) in the wrapped one. */
  readonly to: Anchor
  readonly wrappedTo?: Anchor
  readonly before: string
  readonly after: string
}

/** One wrapped server, as the wrap manifest keeps it. */
export interface WrapRecord {
  readonly file: string
  readonly server: string
  readonly pointer: readonly string[]
  readonly harness: string
  readonly edits: readonly WrapEdit[]
}

export interface FileChange {
  readonly path: string
  readonly before: string
  readonly after: string
  readonly diff: string
  readonly records: readonly WrapRecord[]
}

export function locate(file: Pick<McpConfigFile, 'format' | 'text' | 'shape'>): LocatedServer[] {
  return file.format === 'toml' ? locateToml(file.text, (t) => parseToml(t) as Record<string, unknown>) : locateJson(file.text, file.shape)
}

function anchors(server: LocatedServer): Partial<Record<Anchor, number>> {
  return { commandStart: server.command?.start, commandEnd: server.command?.end, argsStart: server.args?.start, argsEnd: server.args?.end }
}

function splice(text: string, server: LocatedServer, edits: readonly WrapEdit[], wrapping: boolean, path: string): string {
  const at = anchors(server)
  const take = (e: WrapEdit) => (wrapping ? e.after : e.before)
  const expect = (e: WrapEdit) => (wrapping ? e.before : e.after)
  const placed = edits.map((e) => ({ e, start: at[e.from], end: at[wrapping ? e.to : (e.wrappedTo ?? e.to)] }))
  for (const { e, start, end } of placed) {
    if (start === undefined || end === undefined || text.slice(start, end) !== expect(e)) {
      throw new CliError(`${path}: the entry of MCP server "${server.name}" was edited since svc wrapped it; change it back or edit it by hand (nothing was written)`)
    }
  }
  let out = text
  for (const { e, start, end } of placed.sort((a, b) => b.start! - a.start!)) out = out.slice(0, start) + take(e) + out.slice(end)
  return out
}

const list = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`

function wrapEdits(file: McpConfigFile, server: LocatedServer, svcCommand: string): WrapEdit[] {
  const cmd = JSON.stringify(svcCommand)
  const args = list(wrapArgs(server.name, file.harness, server.commandValue!, server.argsValue ?? []))
  const original = file.text.slice(server.command!.start, server.command!.end)
  // An argv command is one array: the wrapper's argv replaces it whole (and unwrap puts the array's bytes back).
  if (server.argv)
    return [
      { from: 'commandStart', to: 'commandEnd', before: original, after: list([svcCommand, ...wrapArgs(server.name, file.harness, server.commandValue!, server.argsValue ?? [])]) },
    ]
  if (!server.args)
    return [
      { from: 'commandStart', to: 'commandEnd', wrappedTo: 'argsEnd', before: original, after: file.format === 'toml' ? `${cmd}\nargs = ${args}` : `${cmd}, "args": ${args}` },
    ]
  return [
    { from: 'commandStart', to: 'commandEnd', before: original, after: cmd },
    { from: 'argsStart', to: 'argsEnd', before: file.text.slice(server.args.start, server.args.end), after: args },
  ]
}

function checkParses(file: McpConfigFile, text: string): void {
  if (file.format === 'toml') {
    try {
      parseToml(text)
    } catch (err) {
      throw new CliError(`${file.path} would not be valid TOML after the edit (${(err as Error).message.split('\n')[0]}); nothing was written`)
    }
  } else {
    const errors: ParseError[] = []
    parseTree(text, errors, { allowTrailingComma: true })
    if (errors.length) throw new CliError(`${file.path} would not be valid JSON after the edit; nothing was written`)
  }
}

function change(file: McpConfigFile, after: string, records: WrapRecord[]): FileChange {
  return { path: file.path, before: file.text, after, records, diff: createTwoFilesPatch(file.path, file.path, file.text, after, '', '', { context: 2 }) }
}

/** What `svc mcp wrap [server]` changes: stdio servers not wrapped yet (remote ones are left, and listed as ungoverned). */
export function planWrap(files: readonly McpConfigFile[], svcCommand: string, only?: string): FileChange[] {
  const out: FileChange[] = []
  for (const file of files) {
    let text = file.text
    const records: WrapRecord[] = []
    // One at a time, located again after each splice (earlier edits move later offsets).
    for (;;) {
      const target = locate({ ...file, text }).find(
        (s) => !s.remote && s.command && (only === undefined || s.name === only) && !unwrapArgs(s.argsValue) && !records.some((r) => isDeepStrictEqual(r.pointer, s.pointer)),
      )
      if (!target) break
      const edits = wrapEdits({ ...file, text }, target, svcCommand)
      text = splice(text, target, edits, true, file.path)
      const again = locate({ ...file, text }).find((s) => isDeepStrictEqual(s.pointer, target.pointer))
      if (again?.commandValue !== svcCommand || unwrapArgs(again.argsValue)?.command !== target.commandValue)
        throw new CliError(`${file.path}: could not wrap MCP server "${target.name}" cleanly; nothing was written`)
      records.push({ file: file.path, server: target.name, pointer: target.pointer, harness: file.harness, edits })
    }
    if (records.length) {
      checkParses(file, text)
      out.push(change(file, text, records))
    }
  }
  return out
}

/** What `svc mcp unwrap [server]` changes: the recorded wraps put back byte for byte. */
export function planUnwrap(files: readonly McpConfigFile[], records: readonly WrapRecord[], only?: string): FileChange[] {
  const out: FileChange[] = []
  for (const file of files) {
    let text = file.text
    const done: WrapRecord[] = []
    for (const record of records.filter((r) => r.file === file.path && (only === undefined || r.server === only))) {
      const server = locate({ ...file, text }).find((s) => isDeepStrictEqual(s.pointer, record.pointer))
      if (!server || !unwrapArgs(server.argsValue)) continue
      text = splice(text, server, record.edits, false, file.path)
      done.push(record)
    }
    if (done.length) {
      checkParses(file, text)
      out.push(change(file, text, done))
    }
  }
  return out
}
