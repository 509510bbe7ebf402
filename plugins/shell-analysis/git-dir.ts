/**
 * Which repository a git invocation works on, found the way git finds it: `--git-dir` or `GIT_DIR` when given,
 * otherwise the first `.git` above the working directory (or `-C DIR`), or the first directory that is itself a
 * git directory (a bare repository, which an agent can lay out by hand). That `.git` may be a file pointing
 * elsewhere (`gitdir: …`: a linked worktree or a submodule), and a linked worktree's git directory names, in its
 * `commondir` file, the directory it shares with the main checkout: the config and the hooks live there. Reading
 * the wrong directory would let an alias or a hook planted in the shared one run unseen, so what cannot be told
 * (a git directory only known at run time, a `.git` file that is not a pointer) is opaque.
 */
import { dirname, join } from 'node:path'
import { instructionsOf } from './files.ts'
import { gitEnvironment } from './git-aliases.ts'
import type { Invocation } from './invocation.ts'
import { lexicalPath } from './paths.ts'
import type { AnalysisState } from './state.ts'

export interface GitRepository {
  /** The repository's own git directory (`.git`, or `.git/worktrees/NAME` of a linked worktree). */
  readonly gitDir: string
  /** Where the shared config and hooks are: the git directory itself, or the main one a worktree names. */
  readonly commonDir: string
  /** The checkout's top directory, when git found the repository by walking up from one. */
  readonly workTree?: string
}

/** How far up git's discovery is followed (git itself stops at the file system root). */
const MAX_DEPTH = 32

/** The repository `argv` (before subcommand index `at`) works on; `opaque` when only run time can tell, undefined outside one. */
export function findRepository(st: AnalysisState, inv: Invocation, argv: readonly string[], at: number): GitRepository | 'opaque' | undefined {
  const end = at === -1 ? argv.length : at
  const resolve = (raw: string, cwd: string) => lexicalPath(raw, { home: st.options.home, cwd })
  // After a `cd` svc could not follow, the call's own directory stands in, as for npm and make (refusing every
  // git there denied ordinary work: `cd "$DIR" && git status`); a `-C` only run time knows is opaque below.
  let base: string | undefined = inv.scope.cwd ?? st.options.cwd ?? st.options.home
  let explicit: string | 'opaque' | undefined
  for (let i = 1; i < end; i++) {
    const a = argv[i]!
    // `-C` options accumulate, each relative to the one before.
    if (a === '-C' && i + 1 < end) base = inv.info[++i]?.dynamic || base === undefined ? undefined : resolve(argv[i]!, base)
    else if (a === '--git-dir' && i + 1 < end) explicit = inv.info[++i]?.dynamic ? 'opaque' : argv[i]!
    else if (a.startsWith('--git-dir=')) explicit = inv.info[i]?.dynamic ? 'opaque' : a.slice('--git-dir='.length)
  }
  if (base === undefined) return 'opaque'
  explicit ??= gitEnvironment(inv.scope, 'GIT_DIR')
  if (explicit === 'opaque') return 'opaque'
  const found = explicit !== undefined ? gitDirAt(resolve(explicit, base)) : discover(st, inv, base)
  if (found === undefined || found === 'opaque') return found
  const common = gitEnvironment(inv.scope, 'GIT_COMMON_DIR')
  if (common === 'opaque') return 'opaque'
  if (common !== undefined) return withCommon(found, resolve(common, base))
  const pointer = instructionsOf(st, inv.scope, join(found.gitDir, 'commondir'))?.trim()
  return pointer ? withCommon(found, resolve(pointer, found.gitDir)) : found
}

function gitDirAt(gitDir: string | undefined): GitRepository | 'opaque' {
  return gitDir === undefined ? 'opaque' : { gitDir, commonDir: gitDir }
}

function withCommon(repo: GitRepository, commonDir: string | undefined): GitRepository | 'opaque' {
  return commonDir === undefined ? 'opaque' : { ...repo, commonDir }
}

/**
 * git's discovery: the first directory upwards with a `.git` directory, a `.git` file that points to one, or that
 * is itself a git directory (a bare repository: HEAD, objects/ and refs/), on disk or laid out by this command.
 */
function discover(st: AnalysisState, inv: Invocation, from: string): GitRepository | 'opaque' | undefined {
  for (let dir = from, n = 0; n < MAX_DEPTH; n++) {
    const entry = writtenEntry(st, dir) ?? st.disk.gitEntry(dir)
    if (entry === 'repo') return { gitDir: join(dir, '.git'), commonDir: join(dir, '.git'), workTree: dir }
    if (entry === 'file') {
      const text = instructionsOf(st, inv.scope, join(dir, '.git'))
      const target = text === undefined ? undefined : /^gitdir: *(.+?)\s*$/m.exec(text)?.[1]
      const gitDir = target === undefined ? undefined : lexicalPath(target, { home: st.options.home, cwd: dir })
      // A `.git` file that is not a pointer svc can follow.
      return gitDir === undefined ? 'opaque' : { gitDir, commonDir: gitDir, workTree: dir }
    }
    if (entry === 'bare') return { gitDir: dir, commonDir: dir }
    if (dirname(dir) === dir) return undefined
    dir = dirname(dir)
  }
  return undefined
}

/** What this command wrote at `dir` that git's discovery would find (`git init x && cd x`, a hand-made `.git`), before disk is asked. */
function writtenEntry(st: AnalysisState, dir: string): 'repo' | 'file' | 'bare' | undefined {
  if (st.files.size === 0) return undefined
  if (st.files.has(join(dir, '.git'))) return 'file'
  const inside = `${join(dir, '.git')}/`
  for (const path of st.files.keys()) if (path.startsWith(inside)) return 'repo'
  return st.files.has(join(dir, 'HEAD')) ? 'bare' : undefined
}
