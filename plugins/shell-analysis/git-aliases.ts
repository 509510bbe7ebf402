/**
 * git aliases: `git p` runs `push --force` when some config says `alias.p = push --force`, so the gates must
 * see the command the alias stands for. Aliases come from `-c alias.x=…` on the command line, a `git config
 * alias.x …` earlier in the same command, the repository's `.git/config`, and the user's global and the
 * system config (with their includes). git ignores an alias named like one of its own commands. Where the
 * config git will read is moved somewhere svc does not look (`HOME=`, `XDG_CONFIG_HOME=`, `GIT_CONFIG_GLOBAL=`,
 * `GIT_DIR=`, `--git-dir`), or set through the environment (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`),
 * the alias cannot be known: the caller reports it as opaque config (fail closed).
 */
import { dirname, join } from 'node:path'
import { instructionsOf } from './files.ts'
import { lexicalPath } from './paths.ts'
import type { AnalysisState, Scope } from './state.ts'

/** git's own commands (git --list-cmds=main,nohelpers, plus later releases): an alias of the same name is ignored. */
export const GIT_BUILTINS: ReadonlySet<string> = new Set(
  (
    'add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap ' +
    'check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config ' +
    'count-objects credential credential-cache credential-store daemon describe diagnose diff diff-files diff-index diff-pairs diff-tree ' +
    'difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck ' +
    'fsck-objects fsmonitor--daemon gc get-tar-commit-id grep gui hash-object help history hook http-backend http-fetch http-push imap-send ' +
    'index-pack init init-db instaweb interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance ' +
    'merge merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-recursive-ours ' +
    'merge-recursive-theirs merge-resolve merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes p4 ' +
    'pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push quiltimport range-diff read-tree rebase ' +
    'receive-pack reflog refs remote remote-ext remote-fd remote-ftp remote-ftps remote-http remote-https repack replace replay repo ' +
    'request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack shell shortlog show show-branch show-index ' +
    'show-ref sparse-checkout stage stash status stripspace submodule subtree svn switch symbolic-ref tag unpack-file unpack-objects ' +
    'update-index update-ref update-server-info upload-archive upload-pack var verify-commit verify-pack verify-tag version ' +
    'whatchanged worktree write-tree'
  ).split(' '),
)

/** Variables that move or add the config git reads: an alias cannot be known while one of them is set. */
const CONFIG_MOVING = /^(HOME|XDG_CONFIG_HOME|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_NOSYSTEM|GIT_CONFIG|GIT_DIR|GIT_COMMON_DIR)$/
/** Variables that carry config entries themselves (`-c` through the environment): any key, including command keys. */
const CONFIG_CARRYING = /^(GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+)$/

/** Prefix of the scope entries that remember a git-relevant variable was set (NUL cannot be in a variable name). */
const MARK = '\0git-env:'

/** Remembers that a variable git reads its config by was assigned (value known or not) for this scope. */
export function noteGitEnv(vars: Map<string, string>, name: string): void {
  if (CONFIG_MOVING.test(name) || CONFIG_CARRYING.test(name)) vars.set(`${MARK}${name}`, '')
}

function touched(vars: ReadonlyMap<string, string>, pattern: RegExp): boolean {
  for (const key of vars.keys()) if ((key.startsWith(MARK) && pattern.test(key.slice(MARK.length))) || pattern.test(key)) return true
  return false
}

/** A git variable's value for this scope: its text, `opaque` when it was set to something only run time knows, or undefined when unset. */
export function gitEnvironment(scope: Scope, name: string): string | 'opaque' | undefined {
  const value = scope.vars.get(name)
  if (value !== undefined) return value
  return scope.vars.has(`${MARK}${name}`) ? 'opaque' : undefined
}

/** Config entries set through the environment: git applies them to every command, and svc does not parse them. */
export function configFromEnvironment(scope: Scope): boolean {
  return touched(scope.vars, CONFIG_CARRYING)
}

/**
 * git's split_cmdline for a non-`!` alias: whitespace separates words, '…' and "…" quote, a backslash escapes
 * the next character outside single quotes. Undefined for an unclosed quote (git refuses that alias).
 */
export function splitAlias(value: string): string[] | undefined {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!
    if (quote === "'") {
      if (c === "'") quote = undefined
      else word += c
    } else if (c === '\\' && i + 1 < value.length) {
      word += value[++i]
      inWord = true
    } else if (quote === '"') {
      if (c === '"') quote = undefined
      else word += c
    } else if (c === "'" || c === '"') {
      quote = c
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += c
      inWord = true
    }
  }
  if (quote !== undefined) return undefined
  if (inWord) words.push(word)
  return words
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

const MAX_INCLUDE_DEPTH = 5

/** The aliases one config file defines, following its `include.path`/`includeIf.*.path` files (read as if all applied). */
function fileAliases(st: AnalysisState, scope: Scope, path: string, into: Map<string, string>, depth = 0): void {
  const text = instructionsOf(st, scope, path)
  if (text === undefined) return
  for (const [key, value] of configEntries(text)) {
    const k = key.toLowerCase()
    if (k.startsWith('alias.')) into.set(k.slice('alias.'.length), value)
    else if (depth < MAX_INCLUDE_DEPTH && /^(include|includeif\..+)\.path$/.test(k)) {
      const included = lexicalPath(value, { home: st.options.home, cwd: dirname(path) })
      if (included !== undefined) fileAliases(st, scope, included, into, depth + 1)
    }
  }
}

/** What an alias lookup found: the definition, nothing (git runs `git-NAME` or fails), or config svc cannot see. */
export type AliasLookup = { readonly value: string } | { readonly opaque: true } | undefined

/**
 * The definition of `sub` as an alias for this git argv, by git's precedence (command line, then the files
 * written earlier in this command, then repository, global, system). `repoConfigs` are the repository's config files.
 */
export function lookupAlias(st: AnalysisState, scope: Scope, argv: readonly string[], at: number, repoConfigs: readonly string[]): AliasLookup {
  const name = argv[at]!.toLowerCase()
  if (GIT_BUILTINS.has(name)) return undefined
  let fromCommandLine: string | undefined
  for (let i = 1; i < at; i++) {
    if (argv[i] === '-c' && argv[i + 1] !== undefined) {
      const kv = argv[i + 1]!
      const eq = kv.indexOf('=')
      if (eq !== -1 && kv.slice(0, eq).toLowerCase() === `alias.${name}`) fromCommandLine = kv.slice(eq + 1)
    }
  }
  if (fromCommandLine !== undefined) return { value: fromCommandLine }
  const moved = touched(scope.vars, CONFIG_MOVING) || argv.slice(1, at).some((a) => a === '--git-dir' || a.startsWith('--git-dir='))
  if (moved || configFromEnvironment(scope)) return { opaque: true }
  const written = st.gitAliases.get(name)
  if (written !== undefined) return { value: written }
  const files = new Map<string, string>()
  const home = st.options.home
  for (const path of ['/etc/gitconfig', join(home, '.config', 'git', 'config'), join(home, '.gitconfig'), ...repoConfigs]) {
    const own = new Map<string, string>()
    fileAliases(st, scope, path, own)
    for (const [k, v] of own) files.set(k, v)
  }
  const value = files.get(name)
  return value === undefined ? undefined : { value }
}
