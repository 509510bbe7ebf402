/**
 * Redirections: `< file` (stdin, known when the command wrote the file), `> file` and `>> file` (writes),
 * `<<< word` and here-documents (stdin text, computed when it can be), and a redirect with no command.
 */
import { rememberWrites, writtenText } from './files.ts'
import type { SyntaxNode } from './parser.ts'
import { recordCommand } from './record.ts'
import type { AnalysisState, Scope, Stdin } from './state.ts'
import { wordContext } from './walk.ts'
import { evaluateString } from './words.ts'

const WRITE_OPS: ReadonlySet<string> = new Set(['>', '>>', '&>', '&>>', '>|', '<>'])

/** `< file`, `> file`, `>> file`, `>&`: reads and writes noted, and the stdin a `<` gives (its text when known). */
export function fileRedirect(st: AnalysisState, node: SyntaxNode, scope: Scope, reads: string[], writes: string[], appends?: Set<string>): Stdin | undefined {
  const dest = node.childForFieldName('destination')
  if (!dest) return undefined
  const op = node.children.find((c) => c !== null && /^[<>&|]+$/.test(c.type))?.type ?? '>'
  if ((op === '>&' || op === '<&') && /^\d+$|^-$/.test(dest.text)) return undefined
  const value = evaluateString([dest], wordContext(st, scope))
  const target = value.fields[0]
  if (target === undefined || target === '') return undefined
  if (WRITE_OPS.has(op) || op === '>&') {
    writes.push(target)
    if (op === '>>' || op === '&>>') appends?.add(target)
    return undefined
  }
  // A process substitution's pipe (`< <(...)`, a here-doc) is no file on disk.
  if (!value.processSubstitution) reads.push(target)
  // `cmd < file` where the command wrote `file` (or it is a process substitution) earlier: stdin is known.
  if (op === '<') {
    const text = writtenText(st, scope, target)
    return { kind: 'file', text, programs: value.programs, ...(value.processSubstitution ? {} : { path: target }) }
  }
  return undefined
}

/** `> file` with no command still opens (and truncates) the file: recorded as the no-op command `:`. */
export function recordBareRedirect(st: AnalysisState, scope: Scope, reads: readonly string[], writes: readonly string[], appends: ReadonlySet<string>): void {
  if (reads.length === 0 && writes.length === 0) return
  recordCommand(st, scope, ':', [':'], scope.via, { reads, writes })
  rememberWrites(st, scope, writes, appends, '')
}

export function herestring(st: AnalysisState, node: SyntaxNode, scope: Scope): Stdin {
  const mark = st.commands.length
  const value = evaluateString(node.namedChildren, wordContext(st, scope))
  return { kind: 'herestring', text: value.dynamic ? undefined : `${value.fields[0] ?? ''}\n`, programs: [...value.programs, ...st.programsSince(mark)] }
}

export function heredocText(st: AnalysisState, node: SyntaxNode, scope: Scope): { text?: string; programs: string[] } {
  const start = node.children.find((c) => c?.type === 'heredoc_start')?.text ?? ''
  const body = node.children.find((c) => c?.type === 'heredoc_body')
  if (!body) return { text: '', programs: [] }
  if (/['"\\]/.test(start)) return { text: body.text, programs: [] }
  const mark = st.commands.length
  let text: string | undefined = ''
  let pos = body.startIndex
  const src = body.text
  for (const child of body.namedChildren) {
    if (child.startIndex > pos) text = text === undefined ? undefined : text + src.slice(pos - body.startIndex, child.startIndex - body.startIndex)
    if (child.type === 'heredoc_content') text = text === undefined ? undefined : text + child.text
    else {
      const v = evaluateString([child], wordContext(st, scope))
      text = v.dynamic || text === undefined ? undefined : text + (v.fields[0] ?? '')
    }
    pos = child.endIndex
  }
  if (text !== undefined && body.endIndex > pos) text += src.slice(pos - body.startIndex)
  return { text, programs: st.programsSince(mark) }
}
