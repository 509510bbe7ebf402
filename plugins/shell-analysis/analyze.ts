/**
 * `analyzeCommand`: the pure entry point of shell analysis. Parses a command string with tree-sitter-bash
 * and returns every simple command that would run, with structural signals, within a hard budget.
 */
import type { CommandAnalysis } from '../../core/types.ts'
import type { CodeParsers } from './code-parsers.ts'
import type { BashParser, SyntaxNode, SyntaxTree } from './parser.ts'
import { AnalysisState, BudgetExceeded, DEFAULT_BUDGET, type Budget, type Scope, type Stdin } from './state.ts'
import type { Caller } from './caller-access.ts'
import { DiskReads } from './disk.ts'
import { inlineHeredocs } from './heredocs.ts'
import { walkStatement } from './walk.ts'

/** Inputs of one analysis: the loaded parser, the governed user's home, the call's cwd, budget overrides. */
export interface AnalyzeOptions {
  readonly parser: BashParser
  readonly home: string
  readonly cwd?: string
  readonly budget?: Partial<Budget>
  /** How many script files deep this analysis is (a script on disk running another one). */
  readonly fileDepth?: number
  /** The daemon's $SVC_HOME (the value of `$SVC_HOME` in commands); `<home>/.svc` when not given. */
  readonly svcHome?: string
  /** Grammars for inline code (see code-parsers.ts). */
  readonly codeParsers?: CodeParsers
  /** Where file-system reads are made and recorded (shared with the scripts it follows); a fresh one when absent. */
  readonly disk?: DiskReads
  /** The daemon's own account when it runs as one (`svc daemon --user`): a kill by name cannot reach it. */
  readonly daemonAccount?: string
  /** Whose rights the analysis reads with, for a daemon under its own account (caller-access.ts). */
  readonly caller?: Caller
  /** Harness CLIs (`$SVC_HARNESS_PROGRAMS`) and the variables that move their configs (`$SVC_HARNESS_VARIABLES`). */
  readonly harnessPrograms?: readonly string[]
  readonly harnessVariables?: readonly string[]
}

/** Script files on disk are followed this many levels (`bash a.sh` whose a.sh runs `bash b.sh`). */
const MAX_FILE_DEPTH = 3

/** Analyses `raw`. Never throws for any input: limits and parser failures come back as `error`. */
export function analyzeCommand(raw: string, opts: AnalyzeOptions): CommandAnalysis {
  const budget: Budget = { ...DEFAULT_BUDGET, ...opts.budget }
  const disk = opts.disk ?? new DiskReads(opts.caller)
  const st = new AnalysisState(
    {
      home: opts.home,
      cwd: opts.cwd,
      ...(opts.svcHome ? { svcHome: opts.svcHome } : {}),
      ...(opts.codeParsers ? { codeParsers: opts.codeParsers } : {}),
      ...(opts.daemonAccount ? { daemonAccount: opts.daemonAccount } : {}),
      ...(opts.harnessPrograms ? { harnessPrograms: opts.harnessPrograms } : {}),
      ...(opts.harnessVariables ? { harnessVariables: opts.harnessVariables } : {}),
    },
    budget,
    disk,
  )
  const trees: SyntaxTree[] = []
  // Substitutions the walk analysed, by tree and node, so a sweep can find the ones it never reached.
  const treeNumbers = new WeakMap<object, number>()
  const visited = new Set<string>()
  const keyOf = (node: SyntaxNode): string => `${treeNumbers.get(node.tree) ?? -1}:${node.id}`
  const parse = (text: string): SyntaxNode => {
    const { tree, used } = opts.parser.parse(shellSource(text), budget.maxParseSteps - st.parseSteps)
    st.parseSteps += used
    if (!tree) throw new BudgetExceeded(`parsing needed more than ${budget.maxParseSteps} steps`)
    treeNumbers.set(tree, trees.length)
    trees.push(tree)
    if (tree.rootNode.hasError) st.signals.add('parse_error')
    return tree.rootNode
  }
  st.analyzeFile = (text, parent, via) => {
    // Scripts running scripts deeper than this are not followed: what they run is unknown (fail closed).
    if ((opts.fileDepth ?? 0) >= MAX_FILE_DEPTH) return void st.signals.add('unanalysable_script')
    const nested = analyzeCommand(text, { ...opts, cwd: parent.cwd, fileDepth: (opts.fileDepth ?? 0) + 1, disk })
    // A script that runs but cannot be analysed is as unknown as an unanalysable command: fail closed.
    if (nested.error) return void st.signals.add('unanalysable_script')
    for (const signal of nested.signals) if (signal !== 'parse_error') st.signals.add(signal)
    for (const command of nested.commands) {
      if (st.commands.length >= budget.maxCommands) break
      st.record({ ...command, via: [...via, ...command.via] })
    }
  }
  st.analyzeString = (text, parent, via, how = {}) => {
    if (parent.depth + 1 > budget.maxDepth) throw new BudgetExceeded(`code nested more than ${budget.maxDepth} levels deep (bash -c, eval, pipes into shells)`)
    if (text.length > budget.maxBytes) throw new BudgetExceeded(`nested command is ${text.length} characters; the limit is ${budget.maxBytes}`)
    const scope: Scope = how.sameShell
      ? { vars: parent.vars, aliases: parent.aliases, functions: parent.functions, via, depth: parent.depth + 1, cwd: parent.cwd }
      : { vars: new Map(parent.vars), aliases: new Map(parent.aliases), functions: new Map(parent.functions), via, depth: parent.depth + 1, cwd: parent.cwd }
    how.positional?.slice(0, 10).forEach((arg, i) => {
      scope.vars.set(String(i), arg)
    })
    if (how.positional && how.positional.length > 1) scope.vars.set('@', how.positional.slice(1).join(' '))
    walkAll(parse(text), scope)
    if (how.sameShell) parent.cwd = scope.cwd
  }
  st.substitute = (node, parent) => {
    visited.add(keyOf(node))
    const mark = st.commands.length
    const label = node.type === 'process_substitution' ? (node.text.startsWith('>') ? '>()' : '<()') : '$()'
    const scope: Scope = {
      vars: new Map(parent.vars),
      aliases: new Map(parent.aliases),
      functions: new Map(parent.functions),
      via: [...parent.via, label],
      depth: parent.depth,
      cwd: parent.cwd,
    }
    // `$(< FILE)` is bash's `$(cat FILE)`: the same read, the same output.
    const statements = node.namedChildren.filter((c) => c.type !== 'comment').map((c) => (c.type === 'file_redirect' ? parse(`cat ${c.text}`) : c))
    // `>(CMD)` reads what the outer command writes into it: a pipe whose text svc does not follow
    // (`echo 'rm -rf ~' > >(sh)` runs that text), as in `OUTER | CMD` with OUTER unknown.
    const stdin: Stdin | undefined = label === '>()' ? { kind: 'pipe', programs: [] } : undefined
    let output: string | undefined
    for (const s of statements) output = walkStatement(st, s, scope, stdin)
    return { output: statements.length === 1 ? output : undefined, programs: st.programsSince(mark) }
  }
  /**
   * Walks a tree, then analyses every command or process substitution the walk did not reach: bash runs one
   * wherever it is expanded (`$(( $(cmd) ))`, `a[$(cmd)]=1`, `${x:$(cmd)}`), and
   * what runs must not depend on the walker knowing each position.
   */
  const walkAll = (root: SyntaxNode, scope: Scope): void => {
    walkStatement(st, root, scope)
    const stack: SyntaxNode[] = [root]
    while (stack.length > 0) {
      const node = stack.pop()!
      if ((node.type === 'command_substitution' || node.type === 'process_substitution') && !visited.has(keyOf(node))) {
        st.substitute(node, scope)
        continue
      }
      const arithmetic = st.unknownTextVariables.size > 0 ? arithmeticText(node) : undefined
      if (arithmetic !== undefined && (arithmetic.match(/[A-Za-z_]\w*/g) ?? []).some((n) => st.unknownTextVariables.has(n))) st.signals.add('dynamic_exec')
      for (const child of node.namedChildren) if (child) stack.push(child)
    }
  }
  let error: string | undefined
  try {
    if (raw.length > budget.maxBytes) throw new BudgetExceeded(`command is ${raw.length} characters; the limit is ${budget.maxBytes}`)
    const top = (): Scope => ({ vars: new Map(), aliases: new Map(), functions: new Map(), via: [], depth: 0, cwd: opts.cwd })
    walkAll(parse(raw), top())
    // A NUL ends an argv string where the command is passed as one (`bash -c`), while bash drops NULs it
    // reads from a script or pipe: both readings are analysed, so a NUL never weakens a match.
    if (raw.includes('\0')) walkAll(parse(raw.slice(0, raw.indexOf('\0'))), top())
  } catch (err) {
    if (!(err instanceof BudgetExceeded)) throw err
    error = err.message
    st.signals.add('unanalysable')
  } finally {
    for (const tree of trees) tree.delete()
  }
  // A file it needed and may not read (a daemon under its own account, a project closed to it) is unknown: fail closed, naming it.
  const refused = (opts.fileDepth ?? 0) === 0 ? disk.refused : []
  const byCaller = (opts.fileDepth ?? 0) === 0 ? disk.callerRefused : []
  if (error === undefined && byCaller.length > 0)
    error = `svc may not read ${byCaller.slice(0, 3).join(', ')}${byCaller.length > 3 ? ` and ${byCaller.length - 3} more` : ''} (permission denied: the calling user could not read it, and svc reads nothing for them they could not), so it cannot tell what runs`
  else if (error === undefined && refused.length > 0)
    error = `svc may not read ${refused.slice(0, 3).join(', ')}${refused.length > 3 ? ` and ${refused.length - 3} more` : ''} (permission denied), so it cannot tell what runs; give the daemon's account read access to the project`
  const result: CommandAnalysis = { raw, commands: st.commands, signals: [...st.signals].sort() }
  return error === undefined ? result : { ...result, error }
}

/**
 * The text bash evaluates as arithmetic at `node`, expanding the value of each variable named in it again
 * (`a[$(cmd)]` in a value runs cmd): `$((…))`, `((…))`, `[[ x -eq y ]]`, an array subscript's index, a
 * `${s:offset:length}`, `let`, `declare -i`. Undefined elsewhere.
 */
function arithmeticText(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'arithmetic_expansion':
      return node.text
    case 'subscript':
      return node.childForFieldName('index')?.text
    case 'compound_statement':
      return node.text.startsWith('((') ? node.text : undefined
    case 'test_command':
      // `[[ … ]]` evaluates both sides of -eq as arithmetic; `[ … ]` (test) wants integers and evaluates nothing.
      return node.text.startsWith('[[') && /\s-(eq|ne|lt|le|gt|ge)\s/.test(node.text) ? node.text : undefined
    case 'expansion': {
      const names = node.namedChildren.filter((c) => c?.type === 'variable_name')
      return names.length > 1
        ? names
            .slice(1)
            .map((n) => n!.text)
            .join(' ')
        : undefined
    }
    case 'command':
      return node.childForFieldName('name')?.text === 'let' ? node.text : undefined
    case 'declaration_command':
      return /^\s*(declare|local|typeset)\s+-\w*i/.test(node.text) ? node.text : undefined
    default:
      return undefined
  }
}

/**
 * The text bash actually parses: NUL bytes dropped (bash and dash ignore them in scripts, pipes and
 * substitutions), here-documents inlined (see heredocs.ts), line continuations joined.
 */
export function shellSource(text: string): string {
  return joinContinuations(inlineHeredocs(text.includes('\0') ? text.replaceAll('\0', '') : text))
}

/**
 * Removes backslash-newline line continuations outside single quotes, as bash does before splitting
 * words (tree-sitter-bash would otherwise split `r\<newline>m` into two words).
 */
export function joinContinuations(text: string): string {
  if (!text.includes('\\\n')) return text
  let out = ''
  let single = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (single) {
      if (ch === "'") single = false
      out += ch
    } else if (ch === '\\' && text[i + 1] === '\n') i++
    else if (ch === '\\' && i + 1 < text.length) {
      out += ch + text[i + 1]
      i++
    } else {
      if (ch === "'") single = true
      out += ch
    }
  }
  return out
}
