/**
 * The static value of an expression in inline code: string literals, concatenation, f-strings and template strings,
 * integer arithmetic, `os.sep`, `path.join`, the home directory APIs and variables assigned earlier in the code.
 * Undefined where run time alone knows the value.
 */
import { aliases, functionAliases } from './code-imports.ts'
import type { CodeNode } from './code-parsers.ts'

/** The name of a member looked up by a computed key. */
export const COMPUTED = '\0computed'

/** A value the analysis could compute: text, an integer, or a list of them. */
export type Value = { s: string } | { n: bigint } | { list: Value[] }

/** How a home directory API's value is written in the text the gates see. */
export const HOME = '~'

/** The static value of an expression, or undefined. */
export function evaluate(node: CodeNode, vars: Map<string, Value | undefined>): Value | undefined {
  switch (node.type) {
    case 'string':
    case 'template_string':
    case 'string_literal':
    case 'raw_string': {
      const s = stringParts(node, vars)
      return s === undefined ? undefined : { s }
    }
    case 'concatenated_string': {
      const parts = node.namedChildren.map((c) => (c ? evaluate(c, vars) : undefined))
      return parts.every((p) => p !== undefined && 's' in p) ? { s: parts.map((p) => (p as { s: string }).s).join('') } : undefined
    }
    case 'integer':
    case 'number': {
      try {
        return { n: BigInt(node.text.replace(/_/g, '')) }
      } catch {
        return undefined
      }
    }
    case 'non_null_expression':
    case 'as_expression':
    case 'satisfies_expression':
    case 'await_expression':
    case 'parenthesized_expression':
      return node.namedChildren[0] ? evaluate(node.namedChildren[0], vars) : undefined
    case 'binary_operator':
    case 'binary_expression':
    case 'binary':
      return binary(node, vars)
    case 'list':
    case 'tuple':
    case 'array': {
      const items = node.namedChildren.filter((c): c is CodeNode => c !== null && c.type !== 'comment').map((c) => evaluate(c, vars))
      return items.every((i) => i !== undefined) ? { list: items as Value[] } : undefined
    }
    case 'identifier':
      return vars.get(node.text)
    default:
      return known(node, vars)
  }
}

/** Well-known values: the home directory APIs, path separators, `path.join`/`os.path.join`. */
function known(node: CodeNode, vars: Map<string, Value | undefined>): Value | undefined {
  const t = node.text
  if (/^(os\.sep|path\.sep|File::SEPARATOR|os\.path\.sep)$/.test(t)) return { s: '/' }
  if (
    /^(os\.homedir\(\)|Dir\.home|Path\.home\(\)|pathlib\.Path\.home\(\)|os\.environ\[['"]HOME['"]\]|process\.env\.HOME|process\.env\[['"]HOME['"]\]|ENV\[['"]HOME['"]\]|os\.getenv\(['"]HOME['"]\)|os\.environ\.get\(['"]HOME['"]\)|os\.path\.expanduser\(['"]~['"]\)|Deno\.env\.get\(['"]HOME['"]\))$/.test(
      t,
    )
  )
    return { s: HOME }
  if (node.type === 'call' || node.type === 'call_expression') {
    const { owner, name } = callee(node)
    if (name === 'homedir' || (name === 'home' && (owner === 'Path' || owner === 'Dir' || owner === 'pathlib'))) return { s: HOME }
    const args = argumentsOf(node).map((a) => evaluate(a, vars))
    const strings = args.every((a) => a !== undefined && 's' in a) ? args.map((a) => (a as { s: string }).s) : undefined
    if (name === 'join' && (owner === 'path' || owner === 'posixpath') && strings) return { s: strings.join('/').replace(/\/+/g, '/') }
    if ((name === 'expanduser' || name === 'expand_path' || name === 'resolve') && strings?.length === 1) return { s: strings[0]! }
    if ((name === 'Path' || name === 'PurePath') && strings) return { s: strings.join('/') }
  }
  if (node.type === 'attribute' || node.type === 'member_expression') {
    // `Path.home()` style chains end in a call; `x.parent` and friends are not computed.
    return undefined
  }
  return undefined
}

function binary(node: CodeNode, vars: Map<string, Value | undefined>): Value | undefined {
  const left = node.childForFieldName('left')
  const right = node.childForFieldName('right')
  const op = node.childForFieldName('operator')?.text ?? node.children.find((c) => c !== null && !c.isNamed)?.text
  const a = left ? evaluate(left, vars) : undefined
  const b = right ? evaluate(right, vars) : undefined
  if (a === undefined || b === undefined) return undefined
  if ('n' in a && 'n' in b) {
    if (op === '+') return { n: a.n + b.n }
    if (op === '-') return { n: a.n - b.n }
    if (op === '*') return { n: a.n * b.n }
    if ((op === '//' || op === '/') && b.n !== 0n) return { n: a.n / b.n }
    if (op === '%' && b.n !== 0n) return { n: a.n % b.n }
    return undefined
  }
  if (op === '+' && ('s' in a || 's' in b)) return { s: text(a) + text(b) }
  if ((op === '/' || op === '/') && 's' in a && 's' in b) return { s: `${a.s}/${b.s}` }
  return undefined
}

export function text(v: Value): string {
  return 's' in v ? v.s : 'n' in v ? String(v.n) : ''
}

/** A string literal's value, with interpolations evaluated (undefined when one cannot be). */
export function stringParts(node: CodeNode, vars: Map<string, Value | undefined>): string | undefined {
  const named = node.namedChildren.filter((c): c is CodeNode => c !== null)
  if (named.length === 0) {
    const raw = node.text
    return raw.replace(/^[rRbBuUfF]*("""|'''|"|'|`)/, '').replace(/("""|'''|"|'|`)$/, '')
  }
  let out = ''
  for (const c of named) {
    if (c.type === 'string_start' || c.type === 'string_end') continue
    if (c.type === 'string_content' || c.type === 'string_fragment') out += c.text
    else if (c.type === 'escape_sequence') out += unescapeSequence(c.text)
    else if (c.type === 'interpolation' || c.type === 'template_substitution') {
      const inner = c.childForFieldName('expression') ?? c.namedChildren.find((x) => x !== null) ?? null
      const v = inner ? evaluate(inner, vars) : undefined
      if (v === undefined || 'list' in v) return undefined
      out += text(v)
    } else return undefined
  }
  return out
}

function unescapeSequence(e: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', "'": "'", '"': '"', '`': '`', $: '$' }
  if (/^\\x[0-9a-fA-F]{2}$/.test(e)) return String.fromCharCode(parseInt(e.slice(2), 16))
  if (/^\\u[0-9a-fA-F]{4}$/.test(e)) return String.fromCharCode(parseInt(e.slice(2), 16))
  return map[e.slice(1)] ?? e.slice(1)
}

/** The called name and the object it is called on (`os.system` → os, system; `system` → -, system). */
export function callee(node: CodeNode): { owner?: string; name?: string } {
  const fn = node.childForFieldName('function') ?? node.childForFieldName('constructor')
  if (fn) {
    if (fn.type === 'identifier') return functionAliases.get(fn.text) ?? { name: fn.text }
    // `require('child_process')['exec' + 'Sync'](…)`: a string key is the name; any other is computed.
    if (fn.type === 'subscript_expression' || fn.type === 'subscript') {
      const key = fn.childForFieldName('index') ?? fn.childForFieldName('subscript')
      const literal = key && /^(['"`])([\w$]+)\1$/.exec(key.text)
      return { owner: lastName(fn.childForFieldName('object') ?? fn.childForFieldName('value')), name: literal ? literal[2] : COMPUTED }
    }
    if (fn.type === 'attribute' || fn.type === 'member_expression') {
      const obj = fn.childForFieldName('object')
      const prop = fn.childForFieldName('attribute') ?? fn.childForFieldName('property')
      return { owner: lastName(obj), name: prop?.text }
    }
    return {}
  }
  // Ruby: `receiver.method(args)` or `method args`.
  const method = node.childForFieldName('method')
  const receiver = node.childForFieldName('receiver')
  return { owner: receiver ? lastName(receiver) : undefined, name: method?.text }
}

export function lastName(node: CodeNode | null): string | undefined {
  if (!node) return undefined
  // `require('fs').rmSync(...)`: the module is the owner.
  const required = /^require\(\s*['"`](?:node:)?([\w/-]+)['"`]\s*\)$/.exec(node.text)
  if (required) return required[1]!.replace(/\/promises$/, '')
  if (node.type === 'identifier' || node.type === 'constant') return aliases.get(node.text) ?? node.text
  if (node.type === 'scope_resolution') return node.text
  const prop = node.childForFieldName('attribute') ?? node.childForFieldName('property') ?? node.childForFieldName('method')
  return prop?.text ?? node.text
}

export function argumentsOf(node: CodeNode): CodeNode[] {
  const list = node.childForFieldName('arguments')
  return (list?.namedChildren ?? []).filter((c): c is CodeNode => c !== null && c.type !== 'comment' && c.type !== 'keyword_argument' && c.type !== 'pair' && c.type !== 'object')
}
