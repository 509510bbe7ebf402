/**
 * Walks a tree-sitter-bash syntax tree statement by statement: lists, pipelines, subshells, groups,
 * control flow, functions, assignments and redirections, handing each simple command to `dispatch`.
 */
import { dispatch, type FieldInfo } from './dispatch.ts'
import { processSubstitutionFile, rememberWrites } from './files.ts'
import { fileRedirect, heredocText, herestring, recordBareRedirect } from './redirects.ts'
import type { SyntaxNode } from './parser.ts'
import { addRedirects } from './record.ts'
import { BudgetExceeded, NO_REDIRECTS, type AnalysisState, type Redirects, type Scope, type Stdin } from './state.ts'
import { STARTUP_VARIABLES } from './programs.ts'
import { assignedVariable, unsetVariable } from './command-variables.ts'
import { evaluateString, evaluateWord, groupWords, type WordContext } from './words.ts'

const STDOUT_PATHS: ReadonlySet<string> = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1'])
const MAX_LOOP_VALUES = 8

/** Walks one statement; returns its static output when known. */
export function walkStatement(st: AnalysisState, node: SyntaxNode, scope: Scope, stdin?: Stdin): string | undefined {
  return st.nested(() => statement(st, node, scope, stdin))
}

function statement(st: AnalysisState, node: SyntaxNode, scope: Scope, stdin?: Stdin): string | undefined {
  switch (node.type) {
    case 'command':
      return runCommand(st, node, scope, stdin, NO_REDIRECTS)
    case 'pipeline':
      return pipeline(st, node.namedChildren, scope, stdin)
    case 'redirected_statement':
      return redirected(st, node, scope, stdin)
    case 'subshell':
      return sequence(st, node, childScope(scope, scope.via), stdin)
    case 'variable_assignment':
      assign(st, node, scope)
      return undefined
    case 'declaration_command':
    case 'variable_assignments': {
      // `declare -n r=NAME`: r is a reference; its value is NAME's (unknown when NAME is).
      const nameref = node.children.some((c) => c?.type === 'word' && /^-[a-zA-Z]*n/.test(c.text))
      for (const child of node.namedChildren) {
        if (child.type === 'variable_assignment' && nameref) namerefAssign(child, scope)
        else if (child.type === 'variable_assignment') assign(st, child, scope)
        else if (child.type !== 'variable_name') walkStatement(st, child, scope)
      }
      return undefined
    }
    case 'unset_command':
      for (const child of node.namedChildren) unsetVariable(scope, child.text)
      return undefined
    case 'function_definition': {
      const name = node.childForFieldName('name')?.text ?? '?'
      const body = node.childForFieldName('body')
      if (body) {
        scope.functions.set(name, body)
        walkStatement(st, body, childScope(scope, [...scope.via, `function ${name}`]))
      }
      return undefined
    }
    case 'for_statement':
      return forLoop(st, node, scope)
    case 'command_substitution':
    case 'process_substitution':
      st.substitute(node, scope)
      return undefined
    case 'comment':
    case 'heredoc_body':
    case 'heredoc_start':
    case 'heredoc_end':
      return undefined
    case 'ERROR':
      st.signals.add('parse_error')
      return sequence(st, node, scope, stdin)
    default:
      return sequence(st, node, scope, stdin)
  }
}

/** Walks named children in order; the output is known only when there is exactly one statement. */
function sequence(st: AnalysisState, node: SyntaxNode, scope: Scope, stdin?: Stdin): string | undefined {
  const children = node.namedChildren.filter((c) => c.type !== 'comment')
  let out: string | undefined
  for (const child of children) out = walkStatement(st, child, scope, stdin)
  return children.length === 1 ? out : undefined
}

function childScope(scope: Scope, via: readonly string[]): Scope {
  return { vars: new Map(scope.vars), aliases: new Map(scope.aliases), functions: new Map(scope.functions), via, depth: scope.depth, cwd: scope.cwd }
}

/** Pipeline stages: each stage's stdin is the previous stage's output, with the programs that produced it. */
function pipeline(st: AnalysisState, stages: readonly SyntaxNode[], scope: Scope, stdin?: Stdin): string | undefined {
  let input = stdin
  let upstream: string[] = [...(stdin?.programs ?? [])]
  let listed: string[] = [...(stdin?.listed ?? [])]
  let out: string | undefined
  for (const stage of stages) {
    if (stage.type === 'comment') continue
    const mark = st.commands.length
    out = walkStatement(st, stage, scope, input)
    upstream = [...upstream, ...st.programsSince(mark)]
    listed = [...listed, ...st.listedSince(mark)]
    input = { kind: 'pipe', text: out, programs: upstream, ...(listed.length > 0 ? { listed } : {}) }
  }
  return out
}

export function wordContext(st: AnalysisState, scope: Scope): WordContext {
  return {
    home: st.options.home,
    cwd: scope.cwd,
    maxLength: st.budget.maxBytes,
    lookup: (name) => {
      const v = scope.vars.get(name)
      if (v !== undefined) return v
      if (name === 'HOME') return st.options.home
      if (name === 'PWD') return scope.cwd
      if (name === 'IFS') return ' \t\n'
      // svc's own default home: reaching it through the variable must look the same as spelling it out.
      if (name === 'SVC_HOME') return st.options.svcHome ?? `${st.options.home}/.svc`
      if (name === 'SHELL' || name === 'BASH') return '/bin/bash'
      // The system directories stand in for the user's own PATH, so `PATH=/tmp/x:$PATH cmd` is known.
      if (name === 'PATH') return '/usr/local/bin:/usr/bin:/bin'
      return undefined
    },
    substitute: (node) => st.substitute(node, scope),
    procsubFile: (output) => processSubstitutionFile(st, output),
  }
}

/** A prefix assignment: startup variables a shell acts on are kept for the command; others are only evaluated. */
function prefixAssignment(st: AnalysisState, node: SyntaxNode, commandScope: Scope): void {
  const name = node.childForFieldName('name')?.text
  const valueNode = node.childForFieldName('value')
  const value = evaluateString(valueNode ? [valueNode] : [node], wordContext(st, commandScope))
  if (!name) return
  if (STARTUP_VARIABLES.has(name) && !value.dynamic) commandScope.vars.set(name, value.fields[0] ?? '')
  assignedVariable(st, commandScope, name, {
    text: value.dynamic ? undefined : (value.fields[0] ?? ''),
    programs: value.programs,
    numeric: valueNode?.type === 'arithmetic_expansion',
  })
}

function namerefAssign(node: SyntaxNode, scope: Scope): void {
  const name = node.childForFieldName('name')?.text
  const target = node.childForFieldName('value')?.text.replace(/^['"]|['"]$/g, '')
  if (!name) return
  const value = target === undefined ? undefined : scope.vars.get(target)
  if (value === undefined) scope.vars.delete(name)
  else scope.vars.set(name, value)
}

function assign(st: AnalysisState, node: SyntaxNode, scope: Scope): void {
  const name = node.childForFieldName('name')?.text
  const valueNode = node.childForFieldName('value')
  const value = valueNode ? evaluateString([valueNode], wordContext(st, scope)) : undefined
  if (!name) return
  // An array in a command variable is not what a program reading it gets: judged unknown.
  assignedVariable(st, scope, name, {
    text: value?.dynamic || valueNode?.type === 'array' ? undefined : (value?.fields[0] ?? ''),
    programs: value?.programs ?? [],
    numeric: valueNode?.type === 'arithmetic_expansion',
  })
  if (valueNode?.type === 'array') return assignArray(st, name, valueNode, scope)
  // A dynamic value keeps its source spelling (`$(cat f)`), so `$X` as a program is still flagged dynamic.
  if (value?.dynamic) scope.vars.delete(name)
  else scope.vars.set(name, value?.fields[0] ?? '')
}

const MAX_ARRAY_ELEMENTS = 64

/**
 * `a=(rm -rf ~)`: elements are kept under `a[0]`, `a[1]`, ... and all of them under `a[@]`, so
 * `"${a[@]}"` as a command is the command it spells. A dynamic element forgets the whole array.
 */
function assignArray(st: AnalysisState, name: string, array: SyntaxNode, scope: Scope): void {
  const ctx = wordContext(st, scope)
  const elements: string[] = []
  let dynamic = false
  for (const child of array.namedChildren) {
    if (!child || child.type === 'comment') continue
    const v = evaluateString([child], ctx)
    if (v.dynamic) dynamic = true
    elements.push(...v.fields)
  }
  for (const key of [...scope.vars.keys()]) if (key.startsWith(`${name}[`)) scope.vars.delete(key)
  if (dynamic || elements.length > MAX_ARRAY_ELEMENTS) {
    scope.vars.delete(name)
    return
  }
  scope.vars.set(name, elements[0] ?? '')
  scope.vars.set(`${name}[@]`, elements.join(' '))
  elements.forEach((e, i) => {
    scope.vars.set(`${name}[${i}]`, e)
  })
}

function runCommand(st: AnalysisState, node: SyntaxNode, scope: Scope, stdin: Stdin | undefined, outer: Redirects): string | undefined {
  const wordNodes: SyntaxNode[] = []
  const reads = [...outer.reads]
  const writes = [...outer.writes]
  let input = stdin
  let nameNode: SyntaxNode | undefined
  const ctx = wordContext(st, scope)
  // `VAR=x cmd`: the variable is set for this command only.
  const commandScope: Scope = { ...scope, vars: new Map(scope.vars) }
  const ownWrites: string[] = []
  const appends = new Set<string>()
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)
    if (!child) continue
    const field = node.fieldNameForChild(i)
    if (field === 'name') {
      nameNode = child
      wordNodes.push(...child.children.filter((c): c is SyntaxNode => c !== null))
    } else if (field === 'argument') wordNodes.push(child)
    else if (child.type === 'variable_assignment') prefixAssignment(st, child, commandScope)
    else if (child.type === 'file_redirect') input = fileRedirect(st, child, scope, reads, ownWrites, appends) ?? input
    else if (child.type === 'herestring_redirect') input = herestring(st, child, scope)
    else if (child.isNamed && child.type !== 'comment') walkStatement(st, child, scope)
  }
  writes.push(...ownWrites)
  if (!nameNode) {
    recordBareRedirect(st, scope, reads, writes, appends)
    return undefined
  }
  const fields: string[] = []
  const info: FieldInfo[] = []
  let length = 0
  for (const word of groupWords(wordNodes)) {
    const value = evaluateWord(word, ctx)
    for (const f of value.fields) length += f.length + 1
    if (length > st.budget.maxBytes) throw new BudgetExceeded(`a command expands to more than ${st.budget.maxBytes} characters`)
    for (const f of value.fields) {
      fields.push(f)
      info.push({ dynamic: value.dynamic, programs: value.programs, procsub: value.processSubstitution, glob: value.glob === true })
    }
    if (value.fields.length === 0 && fields.length === 0 && value.dynamic) st.signals.add('dynamic_program')
  }
  const alias = fields[0] !== undefined && nameNode.firstChild?.type === 'word' ? scope.aliases.get(fields[0]) : undefined
  if (alias !== undefined) {
    const rest = node.text.slice(nameNode.endIndex - node.startIndex)
    const expanded = { ...scope, aliases: new Map([...scope.aliases].filter(([k]) => k !== fields[0])) }
    st.analyzeString(`${alias}${rest}`, expanded, [...scope.via, `alias ${fields[0]}`])
    return undefined
  }
  const fn = fields[0] !== undefined ? scope.functions.get(fields[0]) : undefined
  if (fn && fields[0] !== undefined && !st.activeFunctions.has(fields[0])) return callFunction(st, fields[0], fn, fields.slice(1), scope)
  const own = commandScope.vars.size === scope.vars.size ? scope : commandScope
  const output = dispatch(st, { argv: fields, info, scope: own, via: scope.via, stdin: input, redirects: { reads, writes } })
  // `CDPATH=/ cd etc`: the assignment is the command's, the directory change is the shell's.
  if (own !== scope) scope.cwd = own.cwd
  rememberWrites(st, scope, ownWrites, appends, output)
  return output
}

/** Runs a function body again with the call's arguments as $1.. (its first walk had them unknown). */
function callFunction(st: AnalysisState, name: string, body: SyntaxNode, args: readonly string[], scope: Scope): undefined {
  const inner = childScope(scope, [...scope.via, `function ${name}`])
  args.slice(0, 9).forEach((a, i) => {
    inner.vars.set(String(i + 1), a)
  })
  inner.vars.set('@', args.join(' '))
  inner.vars.set('*', args.join(' '))
  inner.vars.set('#', String(args.length))
  st.activeFunctions.add(name)
  try {
    walkStatement(st, body, inner)
  } finally {
    st.activeFunctions.delete(name)
  }
  return undefined
}

/** `cmd > file`, `cmd <<EOF`, `cmd <<< str`; tree-sitter nests the rest of a here-doc's line inside the redirect. */
function redirected(st: AnalysisState, node: SyntaxNode, scope: Scope, stdin?: Stdin): string | undefined {
  const reads: string[] = []
  const writes: string[] = []
  const appends = new Set<string>()
  let input = stdin
  const continuations: SyntaxNode[] = []
  const handleRedirect = (r: SyntaxNode): void => {
    if (r.type === 'file_redirect') input = fileRedirect(st, r, scope, reads, writes, appends) ?? input
    else if (r.type === 'herestring_redirect') input = herestring(st, r, scope)
    else if (r.type === 'heredoc_redirect') {
      const doc = heredocText(st, r, scope)
      input = { kind: 'heredoc', text: doc.text, programs: doc.programs }
      for (const child of r.namedChildren) {
        if (child.type === 'file_redirect' || child.type === 'herestring_redirect') handleRedirect(child)
        else if (!['heredoc_start', 'heredoc_body', 'heredoc_end'].includes(child.type)) continuations.push(child)
      }
    }
  }
  let body: SyntaxNode | null = node.childForFieldName('body')
  // tree-sitter-bash hangs the redirects of `a && b > f` on the whole list; bash gives them to `b` alone. The
  // list's other commands run first, as they are (so `echo x > f && sh < f` reads what echo wrote); the
  // redirects (and a here-doc) belong to its last command.
  while (body?.type === 'list' && body.namedChildren.length > 1) {
    const parts: SyntaxNode[] = body.namedChildren.filter((c): c is SyntaxNode => c !== null)
    for (const part of parts.slice(0, -1)) walkStatement(st, part, scope)
    body = parts.at(-1)!
  }
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)
    if (child && node.fieldNameForChild(i) === 'redirect') handleRedirect(child)
  }
  if (!body) {
    recordBareRedirect(st, scope, reads, writes, appends)
    return undefined
  }
  const mark = st.commands.length
  let out: string | undefined
  if (body.type === 'command') out = runCommand(st, body, scope, input, { reads, writes })
  else {
    out = walkStatement(st, body, scope, input)
    addRedirects(st, scope, mark, { reads, writes })
  }
  rememberWrites(st, scope, writes, appends, continuations.length === 0 ? out : undefined)
  for (const cont of continuations) {
    if (cont.type === 'pipeline') out = pipeline(st, cont.namedChildren, scope, { kind: 'pipe', text: out, programs: st.programsSince(mark), listed: st.listedSince(mark) })
    else out = walkStatement(st, cont, scope)
  }
  // Output redirected to stdout itself (`> /dev/stdout`) still flows down the pipe.
  return writes.some((w) => !STDOUT_PATHS.has(w)) ? undefined : out
}

function forLoop(st: AnalysisState, node: SyntaxNode, scope: Scope): undefined {
  const variable = node.childForFieldName('variable')?.text
  const body = node.childForFieldName('body')
  const values: string[] = []
  let dynamic = false
  const programs: string[] = []
  const ctx = wordContext(st, scope)
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)
    if (!child || node.fieldNameForChild(i) !== 'value') continue
    const v = evaluateWord([child], ctx)
    dynamic ||= v.dynamic
    programs.push(...v.programs)
    values.push(...v.fields)
  }
  if (!body) return undefined
  // `for i in $(seq 5)`: the values come from what the substitutions ran (numbers from seq).
  if (variable && dynamic) assignedVariable(st, scope, variable, { text: undefined, programs })
  if (!variable || dynamic || values.length === 0 || values.length > MAX_LOOP_VALUES) {
    if (variable) scope.vars.delete(variable)
    walkStatement(st, body, scope)
    return undefined
  }
  for (const value of values) {
    assignedVariable(st, scope, variable, { text: value, programs: [] })
    scope.vars.set(variable, value)
    walkStatement(st, body, scope)
  }
  return undefined
}
