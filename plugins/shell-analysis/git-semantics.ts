/**
 * git as git reads its argv: unique prefixes of long options are the options (`reset --har` is `--hard`,
 * `push --force-w` is `--force-with-lease`), and git runs commands of its own: `-c`/`--config-env` and
 * `git config` values that are commands (aliases with `!`, pagers, editors, fsmonitor, ssh, textconv and
 * filter drivers, credential helpers), `rebase -x`, `difftool -x`, `bisect run`, `submodule foreach`, and
 * environment variables (`GIT_SSH_COMMAND`, `GIT_PAGER`, `GIT_EXTERNAL_DIFF`, ...).
 */
import { shellQuote } from './quote.ts'

/** Long options gates look for, per subcommand; an abbreviation of one is spelled out in full. */
const LONG_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  reset: ['hard', 'merge', 'keep', 'soft', 'mixed'],
  push: ['force', 'force-with-lease', 'force-if-includes', 'mirror', 'delete', 'prune', 'tags', 'set-upstream', 'dry-run'],
  clean: ['force', 'dry-run', 'interactive', 'quiet'],
  checkout: ['force', 'ours', 'theirs', 'patch', 'detach'],
  branch: ['delete', 'force', 'move', 'copy', 'list', 'remotes', 'all'],
  switch: ['discard-changes', 'force', 'create', 'force-create', 'detach'],
  restore: ['staged', 'worktree', 'source', 'patch'],
  rebase: ['exec', 'interactive', 'onto', 'root', 'continue', 'abort'],
  stash: [],
  'read-tree': ['reset', 'merge'],
  'checkout-index': ['all', 'force', 'prefix'],
  'update-ref': ['stdin', 'no-deref'],
  difftool: ['extcmd', 'tool'],
  reflog: [],
  gc: ['prune', 'aggressive'],
}

const GLOBAL_VALUES: ReadonlySet<string> = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path', '--super-prefix'])

/** Index of git's subcommand in argv (after global options), or -1. */
export function gitSubcommandIndex(argv: readonly string[]): number {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!
    if (GLOBAL_VALUES.has(a)) i++
    else if (!a.startsWith('-')) return i
  }
  return -1
}

/** argv with abbreviated long options of the subcommand spelled out (`--har` → `--hard`). */
export function expandGitOptions(argv: readonly string[]): string[] {
  const at = gitSubcommandIndex(argv)
  const known = at === -1 ? undefined : LONG_OPTIONS[argv[at]!]
  if (!known || known.length === 0) return [...argv]
  return argv.map((a, i) => {
    if (i <= at || !a.startsWith('--') || a === '--') return a
    const eq = a.indexOf('=')
    const name = a.slice(2, eq === -1 ? undefined : eq)
    if (name === '' || known.includes(name)) return a
    const full = known.find((k) => k.startsWith(name))
    return full === undefined ? a : `--${full}${eq === -1 ? '' : a.slice(eq)}`
  })
}

/** Config keys whose value git runs as a command (for `alias.*`, only values starting with `!`). */
const COMMAND_KEY =
  /^(core\.(pager|sshcommand|editor|fsmonitor|askpass|gitproxy)|sequence\.editor|diff\.external|diff\.[^.]+\.(textconv|command)|filter\.[^.]+\.(clean|smudge|process)|merge\.[^.]+\.driver|gpg\.program|gpg\.[^.]+\.program|credential(\.[^=]*)?\.helper|pager\.[^.]+|interactive\.difffilter|uploadpack\.packobjectshook|remote\.[^.]+\.(uploadpack|receivepack)|difftool\.[^.]+\.cmd|mergetool\.[^.]+\.cmd|web\.browser|browser\.[^.]+\.cmd|man\.[^.]+\.cmd|sendemail\.[^.]+|ssh\.variant)$/i
/** Keys that make git run code svc cannot see (a hooks directory, another config file). */
const OPAQUE_KEY = /^(core\.hookspath|include\.path|includeif\..+\.path|core\.worktree|protocol\.ext\.allow|safe\.directory)$/i

/** A config assignment `key=value`: the command it sets, or `opaque` when it points git at unseen code. */
export function configCommand(key: string, value: string): { command?: string; opaque?: boolean } {
  const k = key.toLowerCase()
  if (k.startsWith('alias.')) return value.trimStart().startsWith('!') ? { command: value.trimStart().slice(1) } : {}
  if (OPAQUE_KEY.test(k)) return { opaque: true }
  if (COMMAND_KEY.test(k)) return { command: value.replace(/^!/, '') }
  return {}
}

/** The shell strings a git argv runs, with the argv index each came from; `opaque` for unseen code. */
export function gitCommandStrings(argv: readonly string[]): { strings: { text: string; index: number }[]; opaque: boolean } {
  const strings: { text: string; index: number }[] = []
  let opaque = false
  const at = gitSubcommandIndex(argv)
  const sub = at === -1 ? undefined : argv[at]
  const add = (key: string, value: string, index: number): void => {
    const r = configCommand(key, value)
    if (r.command !== undefined) strings.push({ text: r.command, index })
    if (r.opaque) opaque = true
  }
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '-c' && i + 1 < argv.length) {
      const kv = argv[i + 1]!
      const eq = kv.indexOf('=')
      add(eq === -1 ? kv : kv.slice(0, eq), eq === -1 ? '' : kv.slice(eq + 1), i + 1)
    }
    if (a === '--config-env' || a.startsWith('--config-env=')) opaque = true
  }
  if (sub === 'config') {
    // `git config [--global] KEY VALUE`, `git config set KEY VALUE`, `git config --add KEY VALUE`.
    const operands = argv
      .slice(at + 1)
      .map((x, k) => [x, at + 1 + k] as const)
      .filter(([x]) => !x.startsWith('-') && x !== 'set' && x !== 'add')
    const [key, value] = operands
    if (key && value) add(key[0], value[0], value[1])
  }
  const rest = at === -1 ? [] : argv.slice(at + 1)
  const optionValue = (names: readonly string[]): void => {
    rest.forEach((x, k) => {
      if (names.includes(x) && k + 1 < rest.length) strings.push({ text: rest[k + 1]!, index: at + 2 + k })
      for (const n of names) if (n.startsWith('--') && x.startsWith(`${n}=`)) strings.push({ text: x.slice(n.length + 1), index: at + 1 + k })
    })
  }
  if (sub === 'rebase') optionValue(['-x', '--exec'])
  if (sub === 'difftool' || sub === 'mergetool') optionValue(['-x', '--extcmd'])
  // `git bisect run CMD ARGS...` runs the argv as given: quoted back into one string, each argument stays one word.
  if (sub === 'bisect' && rest[0] === 'run' && rest.length > 1) strings.push({ text: rest.slice(1).map(shellQuote).join(' '), index: at + 2 })
  if (sub === 'submodule' && rest.includes('foreach')) {
    const f = rest.indexOf('foreach')
    const cmd = rest.slice(f + 1).filter((x) => x !== '--recursive')
    if (cmd.length > 0) strings.push({ text: cmd.join(' '), index: at + 2 + f })
  }
  return { strings, opaque }
}
