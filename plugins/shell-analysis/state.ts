/**
 * Mutable state of one analysis: the commands found so far, signals, and the budget that bounds the work.
 * One instance per `analyzeCommand` call; nothing here outlives the call.
 */
import type { ShellCommand } from '../../core/types.ts'
import type { CodeParsers } from './code-parsers.ts'
import type { DiskReads } from './disk.ts'
import type { WrittenFile } from './files.ts'
import type { SyntaxNode } from './parser.ts'

/** Programs whose output is names of files under their operands. */
const LISTERS: ReadonlySet<string> = new Set(['find', 'fd', 'fdfind', 'ls', 'tree', 'locate', 'plocate', 'mlocate'])

/** Hard limits on the work one command string may cause. */
export interface Budget {
  /** Largest command accepted, in UTF-16 code units. */
  readonly maxBytes: number
  /** How many times strings may be re-parsed as shell (`bash -c`, `eval`, pipes into shells, aliases). */
  readonly maxDepth: number
  /** Deepest syntax-tree nesting walked. */
  readonly maxNesting: number
  /** Syntax nodes walked (statements, words with substitutions) across all parses. */
  readonly maxNodes: number
  /** Simple commands recorded. */
  readonly maxCommands: number
  /**
   * tree-sitter progress reports allowed across all parses of one analysis: a deterministic bound on parse
   * work (a wall clock would make the verdict depend on machine load).
   */
  readonly maxParseSteps: number
}

/** Limits used unless the plugin is built with overrides. */
export const DEFAULT_BUDGET: Budget = { maxBytes: 64 * 1024, maxDepth: 6, maxNesting: 200, maxNodes: 100_000, maxCommands: 500, maxParseSteps: 1024 }

/** Thrown inside the walk when a limit is hit; caught once at the top of `analyzeCommand`. */
export class BudgetExceeded extends Error {}

/** Variables, aliases and the path by which the current code was reached. */
export interface Scope {
  readonly vars: Map<string, string>
  readonly aliases: Map<string, string>
  /** Functions defined earlier in the same command: called later, their bodies run with the call's arguments. */
  readonly functions: Map<string, SyntaxNode>
  readonly via: readonly string[]
  /** Re-parse depth (0 for the raw command). */
  readonly depth: number
  /** Working directory as far as it is known (`cd` in the same command changes it). */
  cwd?: string
}

/** How re-parsed code runs: in the same shell (`eval`, `source`: its assignments stay) or a child with positional parameters. */
export interface NestedRun {
  readonly sameShell?: boolean
  /** `$0`, `$1`, ... of a `bash -c STRING NAME ARGS...` run. */
  readonly positional?: readonly string[]
}

/** Where a command's standard input comes from, and what is known about it. */
export interface Stdin {
  readonly kind: 'pipe' | 'heredoc' | 'herestring' | 'file'
  /** The content when it can be computed statically. */
  readonly text?: string
  /** Programs that produced it (upstream pipeline stages and their substitutions). */
  readonly programs: readonly string[]
  /** Canonical directories an upstream stage lists (`find ~/.ssh | xargs cat`): what its names point into. */
  readonly listed?: readonly string[]
  /** The file a `< FILE` redirect reads, as written (its text may be on disk: a shell reading it runs it); none for `< <(…)`. */
  readonly path?: string
}

/** Redirections attached to a command. */
export interface Redirects {
  readonly reads: readonly string[]
  readonly writes: readonly string[]
}

/** A command without redirections. */
export const NO_REDIRECTS: Redirects = { reads: [], writes: [] }

/** The governed user's home and the call's working directory. */
export interface AnalysisOptions {
  readonly home: string
  readonly cwd?: string
  readonly svcHome?: string
  /** Grammars for inline Python, JavaScript/TypeScript and Ruby (heuristics only when absent). */
  readonly codeParsers?: CodeParsers
  /** The daemon's own account (`svc daemon --user`), when it runs as one. */
  readonly daemonAccount?: string
  /** Harness CLIs, and the variables that move their configs or drop their hooks (the harness registry's lists). */
  readonly harnessPrograms?: readonly string[]
  readonly harnessVariables?: readonly string[]
}

/** Collects commands and signals and enforces the budget while one command string is analysed. */
export class AnalysisState {
  readonly commands: ShellCommand[] = []
  readonly signals = new Set<string>()
  /** Parse steps spent so far (see Budget.maxParseSteps). */
  parseSteps = 0
  readonly budget: Budget
  readonly options: AnalysisOptions
  /** Every file-system read goes through here (see disk.ts). */
  readonly disk: DiskReads
  nodes = 0
  /** Functions being expanded right now (a recursive call is not expanded again). */
  readonly activeFunctions = new Set<string>()
  /** Canonical paths that downloaders in this command write to (`curl -o x.sh`), to spot running them later. */
  readonly downloads = new Set<string>()
  /**
   * Files this command wrote (see files.ts), by canonical path: their text, or none when svc could not compute it,
   * and `since`, how many commands had been recorded then (only later ones may have changed it).
   */
  readonly files = new Map<string, WrittenFile>()
  /** Variables given text only run time knows (`read n < f`, `n=$(cat f)`): arithmetic on one may run what it holds. */
  readonly unknownTextVariables = new Set<string>()
  /** Repositories whose .git/config and hooks were read already in this analysis. */
  readonly gitConfigs = new Set<string>()
  /** `git config alias.NAME VALUE` run earlier in the same command (lower-case name → value). */
  readonly gitAliases = new Map<string, string>()
  /** A .env file was loaded into the environment earlier in the command (see env-secrets.ts). */
  secretEnv = false
  /** Process substitutions seen so far (each gets its own `/dev/fd/N`). */
  procsubs = 0
  /** Symlinks created earlier in the same command (`ln -s / x`): link path → target, both canonical. */
  readonly links = new Map<string, string>()
  /** System binaries copied earlier in the same command (`cp /bin/rm ./ls`): copy path → original, both canonical. */
  readonly programCopies = new Map<string, string>()
  private nesting = 0
  /** Set by analyze.ts: parses and walks a string as shell code (recursion point for `-c`, eval, pipes). */
  analyzeString: (text: string, parent: Scope, via: readonly string[], how?: NestedRun) => void = () => {}
  /**
   * Set by analyze.ts: analyses a script file found on disk, best effort and isolated (its own budget; a
   * file it cannot analyse adds nothing rather than refusing the command that runs it).
   */
  analyzeFile: (text: string, parent: Scope, via: readonly string[]) => void = () => {}
  /** Set by analyze.ts: walks a command or process substitution and returns its static output. */
  substitute: (node: SyntaxNode, scope: Scope) => { output?: string; programs: readonly string[] } = () => ({ programs: [] })

  constructor(options: AnalysisOptions, budget: Budget, disk: DiskReads) {
    this.options = options
    this.budget = budget
    this.disk = disk
  }

  /** Counts a visited node and enforces the node budget. */
  tick(): void {
    this.nodes++
    if (this.nodes > this.budget.maxNodes) throw new BudgetExceeded(`more than ${this.budget.maxNodes} syntax nodes`)
  }

  /** Runs `fn` one syntax level deeper, enforcing the nesting limit (hostile `$($($(...)))`). */
  nested<T>(fn: () => T): T {
    if (++this.nesting > this.budget.maxNesting) {
      this.nesting--
      throw new BudgetExceeded(`nesting deeper than ${this.budget.maxNesting} levels`)
    }
    try {
      this.tick()
      return fn()
    } finally {
      this.nesting--
    }
  }

  record(command: ShellCommand): void {
    if (this.commands.length >= this.budget.maxCommands) throw new BudgetExceeded(`more than ${this.budget.maxCommands} simple commands`)
    this.commands.push(command)
  }

  /** Programs recorded since `mark` (an index into `commands`). */
  programsSince(mark: number): string[] {
    return this.commands.slice(mark).map((c) => c.program)
  }

  /** Directories that listing programs recorded since `mark` name (their output is paths under them). */
  listedSince(mark: number): string[] {
    return this.commands.slice(mark).flatMap((c) => {
      if (!LISTERS.has(c.program)) return []
      const dirs = (c.paths ?? []).filter((p) => !c.writes?.includes(p))
      // `find DIR -name '*.pub'` lists only such names: the gates see `DIR/**/*.pub` (public keys stay fine).
      const names = c.program === 'find' && !c.argv.some((a) => a === '-o' || a === '-or') ? c.argv.filter((_a, i) => c.argv[i - 1] === '-name') : []
      return names.length === 1 && !names[0]!.includes('/') ? dirs.map((d) => `${d.replace(/\/+$/, '')}/**/${names[0]}`) : dirs
    })
  }
}
