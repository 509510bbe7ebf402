/**
 * Inline interpreter code read with a real grammar (Python, JavaScript/TypeScript, Ruby): calls that delete,
 * spawn, connect or read are found by what they call, not by literal text, and their arguments are evaluated
 * statically — string literals, concatenation (`'rm -rf ' + home`), f-strings and template strings, integer
 * arithmetic (`7000+878`), `os.sep`, `path.join`, the home directory APIs, variables assigned in the code.
 * A dangerous call whose arguments cannot be computed is reported as unknown (the `unknown_code` signal).
 */
import { collectImports, functionAliases } from './code-imports.ts'
import type { CodeLanguage, CodeNode, CodeParsers } from './code-parsers.ts'
import { SPAWN, SPAWN_BARE, SPAWN_OWNERS, DELETE, DELETE_OWNERS, CONNECT, CONNECT_OWNERS, READ } from './code-vocabulary.ts'
import { argumentsOf, callee, COMPUTED, evaluate, lastName, stringParts, type Value } from './code-values.ts'

/** What the code does that gates can check. */
export interface CodeFindings {
  /** Shell command strings it runs (`os.system(...)`, `spawnSync('rm', [...])` as `rm ...`). */
  readonly commands: string[]
  /** Paths it deletes recursively. */
  readonly deletes: string[]
  /** Paths it reads or writes. */
  readonly paths: string[]
  /** `tcp://host:port` destinations it connects to. */
  readonly urls: string[]
  /** Code it evaluates (`exec('...')`, `eval("...")`, `new Function('...')`), analysed again as code of the same language. */
  readonly evals: string[]
  /** A dangerous call with an argument that could not be computed. */
  unknown: boolean
}

const MAX_NODES = 20_000

/** Analyses `code`; undefined when the grammar could not parse it within the step budget. */
export function analyseCode(parsers: CodeParsers, language: CodeLanguage, code: string, steps: number): CodeFindings | undefined {
  const tree = parsers.parse(language, code, steps)
  if (!tree) return undefined
  const findings: CodeFindings = { commands: [], deletes: [], paths: [], urls: [], evals: [], unknown: false }
  const vars = new Map<string, Value | undefined>()
  collectImports(code)
  let visited = 0
  try {
    const walk = (node: CodeNode): void => {
      if (++visited > MAX_NODES) {
        findings.unknown = true
        return
      }
      assignment(node, vars)
      if (node.type === 'call' || node.type === 'call_expression' || node.type === 'new_expression') call(node, findings, vars)
      else if (
        (node.type === 'attribute' || node.type === 'member_expression') &&
        !isCallee(node) &&
        !promisedAway(node) &&
        dangerous(lastName(node.childForFieldName('object')), (node.childForFieldName('attribute') ?? node.childForFieldName('property'))?.text)
      ) {
        // `f = os.system; f(x)`, `map(os.system, cmds)`: a spawn or delete function handed on is called where svc cannot follow.
        findings.unknown = true
      } else if (
        node.type === 'identifier' &&
        handedOn(node) &&
        !promisedAway(node) &&
        (HANDED_ON_EVAL[language]?.has(node.text) || dangerous(functionAliases.get(node.text)?.owner, functionAliases.get(node.text)?.name))
      ) {
        // `.then(eval)`, `e = eval`, `promisify(exec)` (exec from child_process): an eval or spawn handed on, called on text svc never sees.
        findings.unknown = true
      }
      if (node.type === 'subshell' || (node.type === 'command' && language === 'ruby')) shellLiteral(node, findings, vars)
      for (const child of node.namedChildren) if (child) walk(child)
    }
    walk(tree.rootNode)
  } finally {
    tree.delete()
  }
  return findings
}

/** `x = expr`, `const x = expr`, `let x = expr`: the variable's value for the calls after it. */
function assignment(node: CodeNode, vars: Map<string, Value | undefined>): void {
  let name: CodeNode | null = null
  let value: CodeNode | null = null
  if (node.type === 'assignment' || node.type === 'assignment_expression') {
    name = node.childForFieldName('left')
    value = node.childForFieldName('right')
  } else if (node.type === 'variable_declarator') {
    name = node.childForFieldName('name')
    value = node.childForFieldName('value')
  }
  if (name?.type === 'identifier' && value) vars.set(name.text, evaluate(value, vars))
  // `const run = promisify(exec)`: run is exec (called with what svc can follow).
  const wrapped = name?.type === 'identifier' && value ? promisified(value) : undefined
  if (wrapped && name) functionAliases.set(name.text, wrapped)
}

/** The spawn or delete function `promisify(F)` / `util.promisify(cp.exec)` wraps, if that is what `node` is. */
function promisified(node: CodeNode): { owner: string; name: string } | undefined {
  if (node.type !== 'call_expression' || callee(node).name !== 'promisify') return undefined
  const arg = argumentsOf(node)[0]
  if (!arg) return undefined
  const target =
    arg.type === 'identifier'
      ? functionAliases.get(arg.text)
      : arg.type === 'member_expression'
        ? { owner: lastName(arg.childForFieldName('object')) ?? '', name: arg.childForFieldName('property')?.text ?? '' }
        : undefined
  return target && dangerous(target.owner, target.name) ? target : undefined
}

/** Ruby backticks and `%x()`: the text is a shell command. */
function shellLiteral(node: CodeNode, f: CodeFindings, vars: Map<string, Value | undefined>): void {
  const v = stringParts(node, vars)
  if (v === undefined) f.unknown = true
  else f.commands.push(v)
}

/** Eval functions of the languages (`eval`, JS `Function`, Python `exec`/`compile`) and where naming one hands it on: an argument, an assigned value. */
const HANDED_ON_EVAL: Partial<Record<CodeLanguage, ReadonlySet<string>>> = {
  javascript: new Set(['eval', 'Function']),
  typescript: new Set(['eval', 'Function']),
  python: new Set(['eval', 'exec', 'compile']),
}
const HANDED_ON_PARENTS: ReadonlySet<string> = new Set(['arguments', 'argument_list', 'array', 'list'])

/** Whether `node` is a value handed on: an argument, an element, or the value side of an assignment or pair. */
function handedOn(node: CodeNode): boolean {
  const parent = node.parent
  if (!parent) return false
  if (HANDED_ON_PARENTS.has(parent.type)) return true
  const value = parent.childForFieldName('value') ?? parent.childForFieldName('right')
  return ['variable_declarator', 'assignment', 'assignment_expression', 'pair'].includes(parent.type) && value?.startIndex === node.startIndex
}

/** Calls that run code of the program's own language (Python exec/eval/compile, JS eval/Function/vm, Ruby eval family). */
const CODE_EVAL_BARE = new Set(['eval', 'exec', 'compile', 'execfile', 'Function', 'instance_eval', 'class_eval', 'module_eval', 'instance_exec'])
const CODE_EVAL_OWNED: Readonly<Record<string, readonly string[]>> = {
  vm: ['runInNewContext', 'runInThisContext', 'runInContext', 'Script', 'compileFunction', 'SourceTextModule'],
  Kernel: ['eval'],
  binding: ['eval'],
  builtins: ['eval', 'exec', 'compile'],
  __builtins__: ['eval', 'exec', 'compile'],
}
/** Calls that look an attribute up by a name computed at run time (`getattr(os, 'sys' + 'tem')`, Ruby `send`). */
const DYNAMIC_LOOKUP = new Set(['getattr', '__getattribute__', 'send', 'public_send', '__send__', 'method'])
/** What a name looked up at run time may reach a spawn, delete or eval through: the modules that hold them, and the program itself. */
const LOOKUP_ROOTS = new Set([
  ...SPAWN_OWNERS,
  ...DELETE_OWNERS,
  'builtins',
  '__builtins__',
  'globals',
  'locals',
  'vars',
  'Object',
  'self',
  'this',
  'global',
  'globalThis',
  'window',
])

function dangerous(owner: string | undefined, name: string | undefined): boolean {
  if (owner === undefined || name === undefined) return false
  return (SPAWN.has(name) && SPAWN_OWNERS.has(owner)) || (DELETE.has(name) && DELETE_OWNERS.has(owner))
}

/** True when the node is what a call calls (`os.system` in `os.system(x)`), not a value handed on. */
function isCallee(node: CodeNode): boolean {
  const parent = node.parent
  if (!parent) return false
  const fn = parent.childForFieldName('function') ?? parent.childForFieldName('constructor')
  return fn !== null && fn.startIndex === node.startIndex && fn.endIndex === node.endIndex
}

/** `const run = promisify(exec)`: exec handed to promisify whose result is named, which svc follows (see assignment). */
function promisedAway(node: CodeNode): boolean {
  const call = node.parent?.parent
  return call !== null && call !== undefined && promisified(call) !== undefined && call.parent?.type === 'variable_declarator'
}

function call(node: CodeNode, f: CodeFindings, vars: Map<string, Value | undefined>): void {
  const { owner, name } = callee(node)
  if (name === undefined) return
  // A computed member of a module that spawns or deletes may be any of its functions.
  if (name === COMPUTED) return void (owner !== undefined && (SPAWN_OWNERS.has(owner) || DELETE_OWNERS.has(owner)) && (f.unknown = true))
  const args = argumentsOf(node)
  const values = args.map((a) => evaluate(a, vars))
  const first = values[0]
  const evalsCode =
    owner === undefined
      ? CODE_EVAL_BARE.has(name)
      : (CODE_EVAL_OWNED[owner]?.includes(name) ?? false) || ['instance_eval', 'class_eval', 'module_eval', 'instance_exec'].includes(name)
  const timerString = owner === undefined && ['setTimeout', 'setInterval', 'setImmediate'].includes(name) && args[0] !== undefined && /string/.test(args[0].type)
  if (evalsCode || timerString) {
    // Code computed at run time could do anything: unknown. A literal is analysed as code in its turn.
    if (args.length === 0) return
    if (first !== undefined && 's' in first) f.evals.push(first.s)
    else f.unknown = true
    return
  }
  if (DYNAMIC_LOOKUP.has(name)) {
    // getattr(obj, NAME); obj.__getattribute__(NAME), send(:NAME), method(:NAME), import_module(NAME): the looked-up name.
    const arg = args[name === 'getattr' ? 1 : 0]
    if (arg === undefined) return
    const symbol = arg.type === 'simple_symbol' || arg.type === 'symbol' ? arg.text.replace(/^:/, '') : undefined
    const value = evaluate(arg, vars)
    const looked = symbol ?? (value !== undefined && 's' in value ? value.s : undefined)
    // On what: getattr's first argument, the receiver of send/method (none: the program itself).
    const target = name === 'getattr' ? args[0] : undefined
    const root = target !== undefined ? (/__import__|import_module|require\s*\(/.test(target.text) ? 'os' : lastName(target)) : owner
    const reachesSpawn = root === undefined || LOOKUP_ROOTS.has(root)
    // A spawn, delete or eval by another spelling, or a name svc cannot compute on a module that holds them: unknown.
    // (`getattr(handler, name)` on the program's own objects is ordinary code.)
    if ((looked !== undefined && (SPAWN.has(looked) || DELETE.has(looked) || CODE_EVAL_BARE.has(looked))) || (looked === undefined && reachesSpawn)) f.unknown = true
    return
  }
  const spawn = SPAWN.has(name) && ((owner !== undefined && SPAWN_OWNERS.has(owner)) || (owner === undefined && SPAWN_BARE.has(name)))
  if (spawn || (owner === undefined && name === 'system')) {
    const text = first === undefined ? undefined : commandText(first, values.slice(1))
    if (text === undefined) f.unknown = args.length > 0 || f.unknown
    else f.commands.push(text)
    return
  }
  if (DELETE.has(name) && (owner === undefined ? ['rmtree', 'rimraf', 'rimrafSync', 'rm_rf', 'rmSync', 'removeSync', 'remove_tree'].includes(name) : DELETE_OWNERS.has(owner))) {
    if (first !== undefined && 's' in first) f.deletes.push(first.s)
    else if (args.length > 0 || owner === 'Path' || owner === 'pathlib') f.unknown = true
    return
  }
  if (CONNECT.has(name) && (owner === undefined ? ['fetch', 'urlopen', 'create_connection'].includes(name) : CONNECT_OWNERS.has(owner))) return connect(values, f, name)
  if (READ.has(name) && first !== undefined && 's' in first) f.paths.push(first.s)
}

/** socket `connect((host, port))`, `net.connect(port, host)`, `TCPSocket.new(host, port)`, HTTP calls with a URL. */
function connect(values: (Value | undefined)[], f: CodeFindings, name: string): void {
  const flat = values.flatMap((v) => (v !== undefined && 'list' in v ? v.list : [v]))
  const str = flat.find((v): v is { s: string } => v !== undefined && 's' in v)
  const num = flat.find((v): v is { n: bigint } => v !== undefined && 'n' in v)
  if (str && /^[a-z][a-z0-9+.-]*:\/\//i.test(str.s)) {
    f.urls.push(str.s)
    return
  }
  const loopback = str !== undefined && /^(localhost|127\.|::1$|0\.0\.0\.0$|0$)/.test(str.s)
  if (num && (str === undefined || loopback || str)) f.urls.push(`tcp://${str?.s ?? 'localhost'}:${num.n}`)
  else if (
    (loopback || str === undefined) &&
    (name === 'connect' || name === 'create_connection' || name === 'createConnection' || name === 'new' || name === 'Socket' || name === 'TCPSocket')
  )
    f.unknown = flat.length > 0
}

/** A command value: a string is a shell line; a list (or a program and an argument list) is an argv. */
function commandText(first: Value, rest: (Value | undefined)[]): string | undefined {
  if ('s' in first) {
    const list = rest[0]
    if (list !== undefined && 'list' in list) {
      const argv = list.list.map((v) => (v !== undefined && 's' in v ? v.s : undefined))
      return argv.some((a) => a === undefined) ? undefined : [first.s, ...(argv as string[])].map(quote).join(' ')
    }
    return first.s
  }
  if ('list' in first) {
    const argv = first.list.map((v) => (v !== undefined && 's' in v ? v.s : v !== undefined && 'n' in v ? String(v.n) : undefined))
    return argv.some((a) => a === undefined) ? undefined : (argv as string[]).map(quote).join(' ')
  }
  return undefined
}

function quote(arg: string): string {
  return /^[\w@%+=:,./~-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}
