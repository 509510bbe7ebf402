/**
 * Evaluates one shell word the way bash would before running it: quote removal, backslash and ANSI-C
 * decoding, tilde, parameter expansion from variables known in the same command, command substitution
 * output when it can be computed statically, field splitting on $IFS and brace expansion.
 * Anything that cannot be known is kept as written and flagged `dynamic`.
 */
import { evaluateArithmetic } from './arithmetic.ts'
import { decodeEscapes } from './escapes.ts'
import { arrayKey, transform } from './parameter-ops.ts'
import type { SyntaxNode } from './parser.ts'
import { BudgetExceeded } from './state.ts'

/** What a command substitution contributed: its output when known, and the programs it ran. */
export interface Substitution {
  readonly output?: string
  readonly programs: readonly string[]
}

/** What word evaluation needs from the walker: variables, home, cwd, substitution analysis, size cap. */
export interface WordContext {
  readonly home: string
  readonly cwd?: string
  /** Longest text one word may expand to (`a=$a$a` repeated must not double forever). */
  readonly maxLength: number
  /** Value of a variable assigned earlier in the same command, or of a well-known variable. */
  lookup(name: string): string | undefined
  /** Analyses a command or process substitution (its commands are recorded by the caller). */
  substitute(node: SyntaxNode): Substitution
  /** The `/dev/fd/N` path an input process substitution is read through (its output remembered when known). */
  procsubFile(output: string | undefined): string
}

/** A word after expansion. */
export interface WordValue {
  /** Fields after splitting; a word can become several arguments (`rm${IFS}-rf`) or none. */
  readonly fields: string[]
  /** True when part of the word could not be known statically. */
  readonly dynamic: boolean
  /** Programs run by substitutions inside the word (used to spot download- or decode-then-execute). */
  readonly programs: readonly string[]
  /** True when the word is (or contains) a process substitution `<(...)`. */
  readonly processSubstitution: boolean
  /** True when an unquoted `*`, `?` or `[` makes the word a pathname pattern (a quoted one is plain text). */
  readonly glob?: boolean
}

interface Segment {
  text: string
  quoted: boolean
  /** Result of an unquoted expansion: subject to field splitting. */
  split: boolean
  /** Unknown value; `text` holds the source as written. */
  unknown: boolean
  literal: boolean
}

const DEFAULT_IFS = ' \t\n'
const MAX_BRACE_RESULTS = 256
const MAX_BRACE_WORK = 4096

/** Evaluates the adjacent nodes that make up one word (bash words can span several tree-sitter nodes). */
export function evaluateWord(nodes: readonly SyntaxNode[], ctx: WordContext): WordValue {
  const state = { dynamic: false, programs: [] as string[], procsub: false }
  const segments: Segment[] = []
  // tree-sitter sometimes splits `$NAME` into a lone `$` and a following word, and `$"text"` (locale
  // translation) into `$` and a string: flatten concatenations and rejoin those pairs.
  const flat = nodes.flatMap((n) => (n.type === 'concatenation' ? n.children.filter((c): c is SyntaxNode => c !== null) : [n]))
  for (let i = 0; i < flat.length; i++) {
    const node = flat[i]!
    const next = flat[i + 1]
    if (node.type === '$' && next?.type === 'string') continue
    if (node.type === '$' && next?.type === 'word' && /^[A-Za-z_]/.test(next.text)) {
      const name = /^[A-Za-z_]\w*/.exec(next.text)?.[0] ?? ''
      const value = ctx.lookup(name)
      if (value === undefined) state.dynamic = true
      segments.push(
        value === undefined
          ? { text: `$${name}`, quoted: false, split: false, unknown: true, literal: false }
          : { text: value, quoted: false, split: true, unknown: false, literal: false },
      )
      segments.push(literal(unescapeUnquoted(next.text.slice(name.length)), false))
      i++
      continue
    }
    segments.push(...parts(node, false, ctx, state))
  }
  checkLength(segments, ctx)
  const fields = assembleFields(segments, ctx)
  const glob = segments.some((s) => s.literal && /[*?[]/.test(s.text))
  return { fields, dynamic: state.dynamic, programs: state.programs, processSubstitution: state.procsub, glob }
}

/** Evaluates a word in a context where no splitting happens (assignment values, here-strings). */
export function evaluateString(nodes: readonly SyntaxNode[], ctx: WordContext): WordValue {
  const state = { dynamic: false, programs: [] as string[], procsub: false }
  const segments = nodes.flatMap((node) => parts(node, true, ctx, state))
  checkLength(segments, ctx)
  const allUnknown = segments.length > 0 && segments.every((s) => s.unknown)
  const text = segments.map((s) => (s.unknown && !allUnknown ? '' : s.text)).join('')
  return { fields: [expandTilde(segments, text, ctx)], dynamic: state.dynamic, programs: state.programs, processSubstitution: state.procsub }
}

function checkLength(segments: readonly Segment[], ctx: WordContext): void {
  let total = 0
  for (const s of segments) total += s.text.length
  if (total > ctx.maxLength) throw new BudgetExceeded(`a word expands to more than ${ctx.maxLength} characters`)
}

type State = { dynamic: boolean; programs: string[]; procsub: boolean }

function parts(node: SyntaxNode, quoted: boolean, ctx: WordContext, state: State): Segment[] {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'regex':
    case 'extglob_pattern':
      return [literal(quoted ? node.text : unescapeUnquoted(node.text), quoted)]
    case 'raw_string':
      return [literal(node.text.slice(1, -1), true)]
    case 'ansi_c_string':
      return [literal(decodeEscapes(node.text.slice(2, -1), 'ansi-c'), true)]
    case 'string':
      return stringParts(node, ctx, state)
    case 'translated_string':
      return node.namedChildren.flatMap((c) => (c ? parts(c, quoted, ctx, state) : []))
    case 'brace_expression':
      return [literal(node.text, quoted)]
    case 'concatenation':
      return node.children.flatMap((c) => (c ? parts(c, quoted, ctx, state) : []))
    case 'simple_expansion':
    case 'expansion':
      return [expansion(node, quoted, ctx, state)]
    case 'arithmetic_expansion': {
      const value = evaluateArithmetic(node.text.replace(/^\$\(\(|\)\)$|^\$\[|\]$/g, ''), ctx.lookup)
      return [value === undefined ? unknown(node, quoted, state) : { text: value, quoted, split: !quoted, unknown: false, literal: false }]
    }
    case 'command_substitution': {
      const sub = ctx.substitute(node)
      state.programs.push(...sub.programs)
      if (sub.output === undefined) return [unknown(node, quoted, state)]
      return [{ text: sub.output.replace(/\n+$/, ''), quoted, split: !quoted, unknown: false, literal: false }]
    }
    case 'process_substitution': {
      const sub = ctx.substitute(node)
      state.programs.push(...sub.programs)
      state.procsub = true
      return [literal(node.text.startsWith('<') ? ctx.procsubFile(sub.output) : '/dev/fd/63', true)]
    }
    default:
      return [unknown(node, quoted, state)]
  }
}

function literal(text: string, quoted: boolean): Segment {
  return { text, quoted, split: false, unknown: false, literal: !quoted }
}

function unknown(node: SyntaxNode, quoted: boolean, state: State): Segment {
  state.dynamic = true
  return { text: node.text, quoted, split: false, unknown: true, literal: false }
}

/** Unquoted backslash: `\x` is `x`, backslash-newline disappears. */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|.)/gs, (_, ch: string) => (ch === '\n' ? '' : ch))
}

/** Inside double quotes a backslash only escapes `$`, backtick, `"`, `\` and newline. */
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch))
}

function stringParts(node: SyntaxNode, ctx: WordContext, state: State): Segment[] {
  const out: Segment[] = []
  const src = node.text
  let pos = node.startIndex + 1
  const end = node.endIndex - 1
  for (const child of node.children) {
    if (!child || child.startIndex < pos || child.endIndex > end) continue
    if (child.startIndex > pos) out.push(literal(unescapeDouble(src.slice(pos - node.startIndex, child.startIndex - node.startIndex)), true))
    if (child.type === 'string_content') out.push(literal(unescapeDouble(child.text), true))
    else out.push(...parts(child, true, ctx, state))
    pos = child.endIndex
  }
  if (end > pos) out.push(literal(unescapeDouble(src.slice(pos - node.startIndex, end - node.startIndex)), true))
  return out.length > 0 ? out : [literal('', true)]
}

function expansion(node: SyntaxNode, quoted: boolean, ctx: WordContext, state: State): Segment {
  const children = node.children.filter((c): c is SyntaxNode => c !== null)
  const subscript = children.find((c) => c.type === 'subscript')
  const nameNode = children.find((c) => c.type === 'variable_name' || c.type === 'special_variable_name') ?? subscript
  const ops = children.filter((_c, i) => node.fieldNameForChild(i) === 'operator')
  const name = subscript ? arrayKey(subscript) : nameNode?.text
  const value = name === undefined ? undefined : ctx.lookup(name)
  // `"${a[@]}"` is one field per element even inside double quotes.
  const allElements = (subscript !== undefined && /\[[@*]\]$/.test(name ?? '') && !name?.endsWith('[*]')) || name === '@'
  const known = (text: string): Segment => ({ text, quoted, split: !quoted || allElements, unknown: false, literal: false })
  if (name === undefined) return unknown(node, quoted, state)
  if (ops.length === 0) return value === undefined ? unknown(node, quoted, state) : known(value)
  const first = ops[0]
  if (!first) return unknown(node, quoted, state)
  // Operator before the name: `${#X}` (length) or `${!X}` (indirection).
  if (first.startIndex < (nameNode?.startIndex ?? 0)) {
    if (first.type === '!' && value !== undefined) {
      const target = ctx.lookup(value)
      if (target !== undefined) return known(target)
    }
    if (first.type === '#' && value !== undefined) return known(String(value.length))
    return unknown(node, quoted, state)
  }
  const operand = children.filter((c) => c.startIndex >= first.endIndex && c.type !== '}' && node.fieldNameForChild(children.indexOf(c)) !== 'operator')
  const operandText = (): string | undefined => {
    const v = evaluateString(operand, ctx)
    if (v.dynamic) state.dynamic = true
    state.programs.push(...v.programs)
    return v.fields[0]
  }
  const op = first.type
  // `${X:?msg}` aborts when X is unset (or empty): when it runs at all, it is X.
  if (op === ':?' || op === '?') return value !== undefined && (value !== '' || op === '?') ? known(value) : unknown(node, quoted, state)
  if (op === ':-' || op === '-' || op === ':=' || op === '=') {
    if (value !== undefined && (value !== '' || op === '-' || op === '=')) return known(value)
    // Unknown variables take the default: that is what runs when the agent's environment lacks them.
    if (value === undefined) state.dynamic = true
    return known(operandText() ?? '')
  }
  if (op === ':+' || op === '+') {
    if (value === undefined) return unknown(node, quoted, state)
    return known(value === '' && op === ':+' ? '' : (operandText() ?? ''))
  }
  if (value === undefined) return unknown(node, quoted, state)
  const transformed = transform(value, op, ops, operand, operandText)
  return transformed === undefined ? unknown(node, quoted, state) : known(transformed)
}

/** Joins segments into fields: unquoted expansion results split on $IFS; unknown parts stay as written. */
function assembleFields(segments: Segment[], ctx: WordContext): string[] {
  const allUnknown = segments.length > 0 && segments.every((s) => s.unknown)
  const ifs = ctx.lookup('IFS') ?? DEFAULT_IFS
  const fields: string[] = []
  let current = ''
  let started = false
  for (const seg of segments) {
    const text = seg.unknown && !allUnknown ? '' : seg.text
    if (!seg.split || ifs === '') {
      current += text
      started ||= seg.quoted || text !== ''
      continue
    }
    const pieces = splitIfs(text, ifs)
    for (let i = 0; i < pieces.length; i++) {
      if (i > 0) {
        if (started) fields.push(current)
        current = ''
        started = false
      }
      current += pieces[i]
      started ||= pieces[i] !== ''
    }
  }
  if (started) fields.push(current)
  const head = fields[0]
  if (head === undefined) return fields
  // Brace expansion comes before tilde expansion: `{{1..2},~}` yields `1 2 ~` and then the home directory.
  if (fields.length === 1 && segments.every((s) => s.literal)) return braceExpand(head).map((w) => tilde(w, ctx))
  fields[0] = expandTilde(segments, head, ctx)
  return fields
}

/** Splits on IFS characters; runs of IFS whitespace collapse; edge pieces are empty when text starts or ends with IFS. */
function splitIfs(text: string, ifs: string): string[] {
  const esc = (chars: string[]) => chars.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
  const ws = [...ifs].filter((c) => /\s/.test(c))
  const other = [...ifs].filter((c) => !/\s/.test(c))
  const alternatives: string[] = []
  if (other.length > 0) alternatives.push(`${ws.length > 0 ? `[${esc(ws)}]*` : ''}[${esc(other)}]${ws.length > 0 ? `[${esc(ws)}]*` : ''}`)
  if (ws.length > 0) alternatives.push(`[${esc(ws)}]+`)
  return text.split(new RegExp(alternatives.join('|'), 'u'))
}

function expandTilde(segments: Segment[], text: string, ctx: WordContext): string {
  const first = segments[0]
  if (!first?.literal || !first.text.startsWith('~')) return text
  return tilde(text, ctx)
}

/** Tilde expansion of an unquoted word: `~`, `~/x`, `~+`, `~-` (OLDPWD), `~user`. */
function tilde(text: string, ctx: WordContext): string {
  if (!text.startsWith('~')) return text
  if ((text === '~-' || text.startsWith('~-/')) && ctx.lookup('OLDPWD') !== undefined) return ctx.lookup('OLDPWD') + text.slice(2)
  if (text === '~' || text.startsWith('~/')) return ctx.home + text.slice(1)
  if ((text === '~+' || text.startsWith('~+/')) && ctx.cwd) return ctx.cwd + text.slice(2)
  // `~user`: the governed user's own name is their home; another user's home sits next to it (`/home/x`).
  const user = /^~([a-z_][a-z0-9_.-]*)(\/.*)?$/i.exec(text)
  if (user) {
    const homeDir = ctx.home.replace(/\/+$/, '')
    const parent = homeDir.slice(0, homeDir.lastIndexOf('/')) || '/'
    const base = user[1] === homeDir.slice(homeDir.lastIndexOf('/') + 1) ? homeDir : user[1] === 'root' ? '/root' : `${parent === '/' ? '' : parent}/${user[1]}`
    return base + (user[2] ?? '')
  }
  return text
}

/**
 * Bash brace expansion: `{rm,-rf}` and `{1..3}`. Depth-first with a work cap, so `{a,b}` repeated forty
 * times yields its first expansions instead of exploding.
 */
export function braceExpand(word: string): string[] {
  const results: string[] = []
  const stack = [word]
  for (let work = 0; stack.length > 0 && results.length < MAX_BRACE_RESULTS && work < MAX_BRACE_WORK; work++) {
    const w = stack.pop() as string
    const span = findBraceSpan(w)
    if (!span) {
      results.push(w)
      continue
    }
    const [open, close, items] = span
    for (let k = items.length - 1; k >= 0; k--) stack.push(w.slice(0, open) + items[k] + w.slice(close + 1))
  }
  return results.length > 0 ? results : [word]
}

function findBraceSpan(w: string): [number, number, string[]] | undefined {
  for (let open = w.indexOf('{'); open !== -1; open = w.indexOf('{', open + 1)) {
    if (open > 0 && w[open - 1] === '$') continue
    let depth = 0
    const commas: number[] = []
    for (let i = open; i < w.length; i++) {
      if (w[i] === '{') depth++
      else if (w[i] === '}') {
        depth--
        if (depth === 0) {
          const body = w.slice(open + 1, i)
          if (commas.length > 0) {
            const items: string[] = []
            let prev = open + 1
            for (const c of commas) {
              items.push(w.slice(prev, c))
              prev = c + 1
            }
            items.push(w.slice(prev, i))
            return [open, i, items]
          }
          const seq = /^(-?\d+)\.\.(-?\d+)$/.exec(body) ?? /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body)
          if (seq) return [open, i, sequence(seq[1]!, seq[2]!)]
          break
        }
      } else if (w[i] === ',' && depth === 1) commas.push(i)
    }
  }
  return undefined
}

function sequence(from: string, to: string): string[] {
  const numeric = /\d/.test(from)
  const a = numeric ? Number(from) : from.charCodeAt(0)
  const b = numeric ? Number(to) : to.charCodeAt(0)
  const step = a <= b ? 1 : -1
  const out: string[] = []
  for (let v = a; out.length < MAX_BRACE_RESULTS; v += step) {
    out.push(numeric ? String(v) : String.fromCharCode(v))
    if (v === b) break
  }
  return out
}

/** Groups adjacent nodes into shell words (`$"x"` and some concatenations arrive as siblings). */
export function groupWords(nodes: readonly SyntaxNode[]): SyntaxNode[][] {
  const words: SyntaxNode[][] = []
  for (const node of nodes) {
    const last = words[words.length - 1]
    if (last && last[last.length - 1]!.endIndex === node.startIndex) last.push(node)
    else words.push([node])
  }
  return words
}
