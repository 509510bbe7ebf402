/**
 * A git invocation as it runs: abbreviated options spelled out for the gates, the commands git runs for
 * itself (see git-semantics.ts) analysed, and, at trigger time, what an earlier call may have planted: the
 * repository's `.git/config` (aliases, pager, fsmonitor, sshCommand, hooksPath...) and the hooks the
 * subcommand fires, read from disk and analysed like any script.
 */
import { dirname, join } from 'node:path'
import { execString } from './execution.ts'
import { instructionsOf } from './files.ts'
import { configEntries, configFromEnvironment, gitEnvironment, lookupAlias, splitAlias } from './git-aliases.ts'
import { findRepository, type GitRepository } from './git-dir.ts'
import { configCommand, expandGitOptions, gitCommandStrings, gitSubcommandIndex } from './git-semantics.ts'
import { PLAIN, type Invocation } from './invocation.ts'
import { lexicalPath } from './paths.ts'
import { recordCommand, type RecordExtras } from './record.ts'
import { BudgetExceeded, type AnalysisState } from './state.ts'

/** Hooks each subcommand fires. */
const HOOKS: Readonly<Record<string, readonly string[]>> = {
  commit: ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit'],
  push: ['pre-push', 'reference-transaction'],
  merge: ['pre-merge-commit', 'post-merge', 'commit-msg'],
  pull: ['post-merge', 'post-checkout', 'pre-merge-commit'],
  checkout: ['post-checkout'],
  switch: ['post-checkout'],
  clone: ['post-checkout'],
  rebase: ['pre-rebase', 'post-rewrite', 'post-checkout'],
  am: ['applypatch-msg', 'pre-applypatch', 'post-applypatch'],
  'cherry-pick': ['pre-commit', 'commit-msg', 'post-commit'],
  revert: ['pre-commit', 'commit-msg', 'post-commit'],
  gc: ['pre-auto-gc'],
  worktree: ['post-checkout'],
  status: [],
  log: [],
  diff: [],
  add: [],
  fetch: ['reference-transaction'],
  stash: ['post-checkout'],
  reset: ['reference-transaction'],
}

/** How many aliases may stand for one another before svc stops following (git refuses loops itself). */
const MAX_ALIAS_DEPTH = 8

/** Subcommands that run nothing of the repository's (no pager either when their output is piped) are still read for aliases. */
export function gitRun(st: AnalysisState, inv: Invocation, extras: RecordExtras, aliases: ReadonlySet<string> = new Set()): string | undefined {
  const argv = expandGitOptions(inv.argv)
  const { strings, opaque } = gitCommandStrings(argv)
  recordCommand(st, inv.scope, 'git', argv, inv.via, inv.redirects, { ...extras, exclude: strings.map((s) => s.index) })
  // Config entries from the environment can set any key, a pager or an alias among them: svc does not read them.
  if (opaque || configFromEnvironment(inv.scope)) st.signals.add('opaque_config')
  for (const s of strings) execString(st, inv, s.text, [inv.info[s.index] ?? PLAIN], 'git config command')
  // GIT_SSH_COMMAND, GIT_PAGER, GIT_EDITOR... are judged where they are assigned (command-variables.ts).
  const at = gitSubcommandIndex(argv)
  const sub = at === -1 ? undefined : argv[at]!
  if (sub === 'config') rememberAliasWrite(st, argv, at)
  const repo = findRepository(st, inv, argv, at)
  if (repo === 'opaque') st.signals.add('opaque_config')
  const configs = repo === undefined || repo === 'opaque' ? [] : repositoryCode(st, inv, repo, sub)
  if (at !== -1) runAlias(st, { ...inv, argv }, at, configs, extras, aliases)
  // `cd "$(git rev-parse --show-toplevel)"` stays a directory svc can follow.
  const root = at === 1 && argv.length === 3 && sub === 'rev-parse' && argv[2] === '--show-toplevel' ? topLevel(inv, repo) : undefined
  return root === undefined ? undefined : `${root}\n`
}

/** The checkout's top directory git would print, when svc can tell: found by walking up, and no GIT_WORK_TREE. */
function topLevel(inv: Invocation, repo: GitRepository | 'opaque' | undefined): string | undefined {
  if (repo === undefined || repo === 'opaque' || gitEnvironment(inv.scope, 'GIT_WORK_TREE') !== undefined) return undefined
  return repo.workTree
}

/**
 * What an earlier call may have planted in the repository: command keys of its config files (once) and the
 * hooks `sub` fires. Returns the config files read, in git's order (shared config, then a worktree's own).
 */
function repositoryCode(st: AnalysisState, inv: Invocation, repo: GitRepository, sub: string | undefined): string[] {
  const configs = [join(repo.commonDir, 'config'), ...(repo.gitDir === repo.commonDir ? [] : [join(repo.gitDir, 'config.worktree')])]
  let hooksPath = join(repo.commonDir, 'hooks')
  const entries = configs.flatMap((path) => configEntries(instructionsOf(st, inv.scope, path) ?? ''))
  // A relative core.hooksPath is taken from where hooks run: the top of the checkout.
  const hooksBase = repo.workTree ?? dirname(repo.commonDir)
  for (const [key, value] of entries) if (key.toLowerCase() === 'core.hookspath') hooksPath = lexicalPath(value, { home: st.options.home, cwd: hooksBase }) ?? hooksPath
  // A command from the config that runs git again does not re-read the same config (it was read once).
  const configKey = `${repo.commonDir}\0${repo.gitDir}`
  if (!st.gitConfigs.has(configKey)) {
    st.gitConfigs.add(configKey)
    for (const [key, value] of entries) {
      // Aliases matter only as the subcommand: lookupAlias resolves them per invocation.
      if (key.toLowerCase().startsWith('alias.')) continue
      const r = configCommand(key, value)
      if (r.command !== undefined) execString(st, inv, r.command, [PLAIN], `.git/config ${key}`)
      else if (r.opaque && !/^core\.hookspath$/i.test(key) && !/^safe\.directory$/i.test(key)) st.signals.add('opaque_config')
    }
  }
  // Hooks per subcommand: `git status; git commit` fires commit's hooks even though status read the config first.
  for (const hook of sub !== undefined ? (HOOKS[sub] ?? []) : []) {
    const seen = `${hooksPath}\0${hook}`
    if (st.gitConfigs.has(seen)) continue
    st.gitConfigs.add(seen)
    const text = instructionsOf(st, inv.scope, join(hooksPath, hook))
    if (text !== undefined) st.analyzeFile(text, inv.scope, [...inv.via, `git hook ${hook}`])
  }
  return configs
}

/** `git p ARGS` where `p` is an alias: the command it stands for is analysed as if typed (a `!` alias as shell with ARGS). */
function runAlias(st: AnalysisState, inv: Invocation, at: number, repoConfigs: readonly string[], extras: RecordExtras, aliases: ReadonlySet<string>): void {
  const name = inv.argv[at]!.toLowerCase()
  if (inv.info[at]?.dynamic) return
  const found = lookupAlias(st, inv.scope, inv.argv, at, repoConfigs)
  if (found === undefined || aliases.has(name)) return
  if ('opaque' in found) {
    st.signals.add('opaque_config')
    return
  }
  if (aliases.size >= MAX_ALIAS_DEPTH) throw new BudgetExceeded(`git aliases nested deeper than ${MAX_ALIAS_DEPTH}`)
  const dynamicValue = inv.argv.slice(1, at).some((a, i) => inv.info[i + 1]?.dynamic && a.toLowerCase().startsWith(`alias.${name}=`))
  if (dynamicValue) return void st.signals.add('opaque_config')
  const rest = inv.argv.slice(at + 1)
  const restInfo = inv.info.slice(at + 1)
  const value = found.value.trimStart()
  if (value.startsWith('!')) {
    // git runs it as `sh -c 'VALUE "$@"' VALUE ARGS...`.
    execString(st, inv, `${value.slice(1)} "$@"`, [PLAIN, ...restInfo], `git alias ${name}`, { positional: [value.slice(1), ...rest] })
    return
  }
  const words = splitAlias(value)
  // git refuses an empty alias or one with an unclosed quote ("bad alias"): nothing runs.
  if (words === undefined || words.length === 0) return
  const argv = [...inv.argv.slice(0, at), ...words, ...rest]
  const info = [...inv.info.slice(0, at), ...words.map(() => PLAIN), ...restInfo]
  gitRun(st, { ...inv, argv, info, via: [...inv.via, `git alias ${name}`] }, extras, new Set([...aliases, name]))
}

/** `git config [--global|--local|--file F] alias.NAME VALUE` earlier in the command: later `git NAME` in it runs VALUE. */
function rememberAliasWrite(st: AnalysisState, argv: readonly string[], at: number): void {
  const operands = argv.slice(at + 1).filter((x, k, all) => !x.startsWith('-') && x !== 'set' && x !== 'add' && !['--file', '-f', '--blob'].includes(all[k - 1] ?? ''))
  const [key, value] = operands
  if (key !== undefined && value !== undefined && key.toLowerCase().startsWith('alias.')) st.gitAliases.set(key.slice('alias.'.length).toLowerCase(), value)
}
