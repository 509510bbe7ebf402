/**
 * A git invocation as it runs: abbreviated options spelled out for the gates, the commands git runs for
 * itself (see git-semantics.ts) analysed, and, at trigger time, what an earlier call may have planted: the
 * repository's `.git/config` (aliases, pager, fsmonitor, sshCommand, hooksPath...) and the hooks the
 * subcommand fires, read from disk and analysed like any script.
 */
import { dirname, join } from 'node:path'
import { execString } from './execution.ts'
import { contentOf } from './files.ts'
import { configCommand, expandGitOptions, gitCommandStrings, gitSubcommandIndex, GIT_COMMAND_VARIABLES } from './git-semantics.ts'
import { PLAIN, type Invocation } from './invocation.ts'
import { lexicalPath } from './paths.ts'
import { recordCommand, type RecordExtras } from './record.ts'
import type { AnalysisState } from './state.ts'

/** Hooks each subcommand fires. */
const HOOKS: Readonly<Record<string, readonly string[]>> = {
  commit: ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit'], push: ['pre-push', 'reference-transaction'],
  merge: ['pre-merge-commit', 'post-merge', 'commit-msg'], pull: ['post-merge', 'post-checkout', 'pre-merge-commit'], checkout: ['post-checkout'],
  switch: ['post-checkout'], clone: ['post-checkout'], rebase: ['pre-rebase', 'post-rewrite', 'post-checkout'], am: ['applypatch-msg', 'pre-applypatch', 'post-applypatch'],
  'cherry-pick': ['pre-commit', 'commit-msg', 'post-commit'], revert: ['pre-commit', 'commit-msg', 'post-commit'], gc: ['pre-auto-gc'], worktree: ['post-checkout'],
  status: [], log: [], diff: [], add: [], fetch: ['reference-transaction'], stash: ['post-checkout'], reset: ['reference-transaction'],
}

/** Subcommands that run nothing of the repository's (no pager either when their output is piped) are still read for aliases. */
export function gitRun(st: AnalysisState, inv: Invocation, extras: RecordExtras): undefined {
  const argv = expandGitOptions(inv.argv)
  const { strings, opaque } = gitCommandStrings(argv)
  recordCommand(st, inv.scope, 'git', argv, inv.via, inv.redirects, { ...extras, exclude: strings.map((s) => s.index) })
  if (opaque) st.signals.add('opaque_config')
  for (const s of strings) execString(st, inv, s.text, [inv.info[s.index] ?? PLAIN], 'git config command')
  for (const name of GIT_COMMAND_VARIABLES) {
    const value = inv.scope.vars.get(name)
    if (value !== undefined && value.trim() !== '' && (name.startsWith('GIT_') || name.endsWith('ASKPASS'))) execString(st, inv, value, [PLAIN], `git ${name}`)
  }
  const at = gitSubcommandIndex(argv)
  const sub = at === -1 ? undefined : argv[at]!
  const gitDir = findGitDir(st, inv)
  // A command from the config that runs git again does not re-read the same config (it was read once).
  if (gitDir === undefined || st.gitConfigs.has(gitDir)) return undefined
  st.gitConfigs.add(gitDir)
  const config = contentOf(st, inv.scope, join(gitDir, 'config'))
  let hooksPath = join(gitDir, 'hooks')
  for (const [key, value] of config === undefined ? [] : configEntries(config)) {
    if (key.toLowerCase() === 'core.hookspath') hooksPath = lexicalPath(value, { home: st.options.home, cwd: dirname(gitDir) }) ?? hooksPath
    const r = configCommand(key, value)
    // An alias matters only when it is the subcommand; the other command keys run on ordinary use.
    if (r.command !== undefined && (!key.toLowerCase().startsWith('alias.') || key.slice(6) === sub)) execString(st, inv, r.command, [PLAIN], `.git/config ${key}`)
    else if (r.opaque && !/^core\.hookspath$/i.test(key) && !/^safe\.directory$/i.test(key)) st.signals.add('opaque_config')
  }
  for (const hook of sub !== undefined ? (HOOKS[sub] ?? []) : []) {
    const text = contentOf(st, inv.scope, join(hooksPath, hook))
    if (text !== undefined) st.analyzeFile(text, inv.scope, [...inv.via, `git hook ${hook}`])
  }
  return undefined
}

/** `.git` of the working directory (or `-C DIR`), walking up; undefined outside a repository. */
function findGitDir(st: AnalysisState, inv: Invocation): string | undefined {
  const at = inv.argv.indexOf('-C')
  const base = at > 0 && inv.argv[at + 1] !== undefined ? lexicalPath(inv.argv[at + 1]!, { home: st.options.home, cwd: inv.scope.cwd }) : inv.scope.cwd
  for (let dir = base, n = 0; dir !== undefined && n < 32; n++) {
    if (st.disk.hasGitDir(dir)) return join(dir, '.git')
    if (dirname(dir) === dir) break
    dir = dirname(dir)
  }
  return undefined
}

/** `section.key = value` pairs of a git config file (`[alias]`, `[diff "x"]`, values unquoted). */
export function configEntries(text: string): [string, string][] {
  const out: [string, string][] = []
  let section = ''
  for (const raw of text.split('\n').slice(0, 2000)) {
    const line = raw.trim()
    const head = /^\[([\w.-]+)(?:\s+"([^"]*)")?\]/.exec(line)
    if (head) {
      section = head[2] !== undefined ? `${head[1]}.${head[2]}` : head[1]!
      continue
    }
    const kv = /^([\w.-]+)\s*=\s*(.*)$/.exec(line)
    if (kv && section !== '') out.push([`${section}.${kv[1]}`, kv[2]!.replace(/^"(.*)"$/, '$1').replace(/\\"/g, '"')])
  }
  return out
}
