/**
 * Inline interpreter code read with a real grammar (Python, JavaScript/TypeScript, Ruby): calls that delete,
 * spawn, connect or read are found by what they call, not by literal text, and their arguments are evaluated
 * statically — string literals, concatenation (`'rm -rf ' + home`), f-strings and template strings, integer
 * arithmetic (`7000+878`), `os.sep`, `path.join`, the home directory APIs, variables assigned in the code.
 * A dangerous call whose arguments cannot be computed is reported as unknown (the `unknown_code` signal).
 */
import { aliases, collectImports, functionAliases } from './code-imports.ts'
import type { CodeLanguage, CodeNode, CodeParsers } from './code-parsers.ts'

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

type Value = { s: string } | { n: bigint } | { list: Value[] }

const MAX_NODES = 20_000
const HOME = '~'

const SPAWN = new Set([
  'system',
  'popen',
  'Popen',
  'check_output',
  'check_call',
  'getoutput',
  'getstatusoutput',
  'execSync',
  'execFileSync',
  'spawnSync',
  'spawn',
  'execFile',
  'exec',
  'execa',
  'execaSync',
  'execaCommand',
  'execaCommandSync',
  'run',
  'call',
  'capture2',
  'capture2e',
  'capture3',
  'popen2',
  'popen3',
  'spawn_process',
  'startfile',
  'execv',
  'execvp',
  'execl',
  'execlp',
  'execve',
  'spawnv',
  'spawnvp',
  'spawnl',
  'spawnlp',
  'Command',
])
const SPAWN_BARE = new Set([
  'system',
  'popen',
  'execSync',
  'execFileSync',
  'spawnSync',
  'spawn',
  'execFile',
  'check_output',
  'check_call',
  'Popen',
  'getoutput',
  'execa',
  'execaSync',
  'execaCommand',
  'execaCommandSync',
  '$',
])
const SPAWN_OWNERS = new Set(['os', 'subprocess', 'child_process', 'cp', 'childProcess', 'Kernel', 'IO', 'Open3', 'Bun', 'Deno', 'commands', 'pty', 'sh', 'shell', 'proc'])
const DELETE = new Set([
  'rmtree',
  'rmSync',
  'rmdirSync',
  'rm',
  'rmdir',
  'unlink',
  'unlinkSync',
  'remove',
  'removedirs',
  'rm_rf',
  'rm_r',
  'remove_dir',
  'remove_entry',
  'remove_entry_secure',
  'rimraf',
  'rimrafSync',
  'removeSync',
  'emptyDirSync',
  'emptyDir',
  'deleteSync',
  'delete',
  'rmdirs',
  'remove_tree',
  'rm_f',
  'rmdir_p',
])
const DELETE_OWNERS = new Set([
  'shutil',
  'os',
  'fs',
  'fsp',
  'promises',
  'fse',
  'fsExtra',
  'FileUtils',
  'Dir',
  'File',
  'Pathname',
  'Deno',
  'path',
  'Path',
  'pathlib',
  'rimraf',
  'del',
])
const CONNECT = new Set(['connect', 'create_connection', 'createConnection', 'urlopen', 'request', 'get', 'post', 'put', 'fetch', 'open', 'new', 'Socket', 'TCPSocket', 'start'])
const CONNECT_OWNERS = new Set([
  'socket',
  's',
  'sock',
  'net',
  'http',
  'https',
  'requests',
  'httpx',
  'urllib',
  'request',
  'TCPSocket',
  'Socket',
  'Net::HTTP',
  'HTTP',
  'axios',
  'got',
  'undici',
  'Deno',
])
const READ = new Set([
  'open',
  'readFile',
  'readFileSync',
  'read_text',
  'read_bytes',
  'read',
  'readlines',
  'copyfile',
  'copy',
  'copy2',
  'copyFileSync',
  'copyFile',
  'createReadStream',
  'binread',
  'readlink',
  'listdir',
  'readdirSync',
  'glob',
  'walk',
])

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

/** The name of a member looked up by a computed key. */
const COMPUTED = '\0computed'

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

/** The called name and the object it is called on (`os.system` → os, system; `system` → -, system). */
function callee(node: CodeNode): { owner?: string; name?: string } {
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

function lastName(node: CodeNode | null): string | undefined {
  if (!node) return undefined
  // `require('fs').rmSync(...)`: the module is the owner.
  const required = /^require\(\s*['"`](?:node:)?([\w/-]+)['"`]\s*\)$/.exec(node.text)
  if (required) return required[1]!.replace(/\/promises$/, '')
  if (node.type === 'identifier' || node.type === 'constant') return aliases.get(node.text) ?? node.text
  if (node.type === 'scope_resolution') return node.text
  const prop = node.childForFieldName('attribute') ?? node.childForFieldName('property') ?? node.childForFieldName('method')
  return prop?.text ?? node.text
}

function argumentsOf(node: CodeNode): CodeNode[] {
  const list = node.childForFieldName('arguments')
  return (list?.namedChildren ?? []).filter((c): c is CodeNode => c !== null && c.type !== 'comment' && c.type !== 'keyword_argument' && c.type !== 'pair' && c.type !== 'object')
}

/** The static value of an expression, or undefined. */
function evaluate(node: CodeNode, vars: Map<string, Value | undefined>): Value | undefined {
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

function text(v: Value): string {
  return 's' in v ? v.s : 'n' in v ? String(v.n) : ''
}

/** A string literal's value, with interpolations evaluated (undefined when one cannot be). */
function stringParts(node: CodeNode, vars: Map<string, Value | undefined>): string | undefined {
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
