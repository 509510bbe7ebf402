/**
 * Programs that carry a shell command inside their arguments: `ssh HOST CMD...` (the remote side runs it
 * through a shell), `npx -c CMD` (`npx PKG ...` runs PKG like a wrapper), editors' and databases' shell
 * escapes, and options whose value is a command (`tar --checkpoint-action=exec=CMD`, `rsync -e CMD`,
 * `zip -TT CMD`, `man -P CMD`). git's are in git-semantics.ts, ssh's in ssh-commands.ts.
 */
import { sshRemoteCommand } from './ssh-commands.ts'

/** A shell string nested in the argv, or (npx) the index where the wrapped argv starts. */
export type Nested =
  | { readonly kind: 'string'; readonly text: string; readonly exclude: number[]; readonly label: string }
  | { readonly kind: 'argv'; readonly start: number; readonly exclude: number[]; readonly text: string; readonly label: string }

/** One nested string holding every command of `found` (in argv order), or undefined when there is none. */
function allOf(found: readonly (Nested | undefined)[]): Nested | undefined {
  const strings = found.filter((n): n is Extract<Nested, { kind: 'string' }> => n?.kind === 'string')
  if (strings.length === 0) return undefined
  return { kind: 'string', text: strings.map((n) => n.text).join('\n'), exclude: strings.flatMap((n) => n.exclude), label: strings[0]!.label }
}

/** Options of package runners that take a value in the next argument (`--package x`, pnpm `--filter x`). */
const RUNNER_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-p', '--package', '--filter', '-F', '--workspace', '-w', '--prefix', '-C', '--dir', '--cwd', '--registry', '--cache'])

function npx(argv: readonly string[]): Nested | undefined {
  const calls: Nested[] = []
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if ((arg === '-c' || arg === '--call' || arg === '--shell-mode') && argv[i + 1] !== undefined) calls.push({ kind: 'string', text: argv[++i]!, exclude: [i], label: '-c' })
    else if (arg.startsWith('--call=')) calls.push({ kind: 'string', text: arg.slice(7), exclude: [i], label: '-c' })
    else if (RUNNER_VALUE_OPTIONS.has(arg)) i++
    else if (!arg.startsWith('-')) return allOf(calls) ?? { kind: 'argv', start: i, exclude: [], text: '', label: '' }
  }
  return allOf(calls)
}

/**
 * `npm exec`/`npm x`, `pnpm exec`/`pnpm dlx`, `yarn exec`/`yarn dlx`, `bun x`: npx behind a subcommand
 * (global options such as `--prefix DIR` may come first).
 */
function subcommandRunner(subcommands: readonly string[]): (argv: readonly string[]) => Nested | undefined {
  return (argv) => {
    let i = 1
    while (i < argv.length && argv[i]!.startsWith('-')) i += RUNNER_VALUE_OPTIONS.has(argv[i]!) ? 2 : 1
    if (!subcommands.includes(argv[i] ?? '')) return undefined
    const inner = npx(argv.slice(i))
    if (inner === undefined) return undefined
    return inner.kind === 'argv' ? { ...inner, start: inner.start + i } : { ...inner, exclude: inner.exclude.map((k) => k + i) }
  }
}

/**
 * Vim-family ex commands given as `-c CMD`, `--cmd CMD` or `+CMD`: `!CMD` (or `silent !CMD`, `r !CMD`) and
 * `call system("CMD")` run CMD in a shell.
 */
function vim(argv: readonly string[]): Nested | undefined {
  const found: Nested[] = []
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    const value = arg === '-c' || arg === '--cmd' ? argv[i + 1] : arg.startsWith('+') ? arg.slice(1) : undefined
    const index = arg.startsWith('+') ? i : i + 1
    if (value === undefined) continue
    const bang = /^[\s:]*(?:(?:silent|sil|exe|execute|keepalt)!?\s+)*(?:\d*,?\d*|%)?(?:r(?:ead)?\s*|w(?:rite)?\s*)?!(.+)$/s.exec(value)
    const system = /\bsystem(?:list)?\s*\(\s*(['"])(.*?)\1/s.exec(value)
    if (bang) found.push({ kind: 'string', text: bang[1]!, exclude: [index], label: '-c !' })
    else if (system) found.push({ kind: 'string', text: system[2]!, exclude: [index], label: '-c system()' })
  }
  return allOf(found)
}

/**
 * Database shells and sed that run shell commands from their own language: `sqlite3 db '.shell CMD'`,
 * `psql -c '\! CMD'`, `mysql -e 'system CMD'`, GNU `sed 'e CMD'` (and `s/x/CMD/e`, whose command is the
 * edited text: unknown, so flagged by the caller through an empty string).
 */
function metaCommand(pattern: RegExp): (argv: readonly string[], stdin?: string) => Nested | undefined {
  return (argv, stdin) => {
    const found: Nested[] = []
    argv.forEach((arg, i) => {
      const m = i > 0 ? pattern.exec(arg) : null
      if (m) found.push({ kind: 'string', text: m[1]!, exclude: [i], label: 'shell escape' })
    })
    // The same escapes in a script read from stdin (`sqlite3 db <<< '.shell CMD'`), line by line.
    for (const line of (stdin ?? '').split('\n')) {
      const m = pattern.exec(line)
      if (m) found.push({ kind: 'string', text: m[1]!, exclude: [], label: 'shell escape (stdin)' })
    }
    return allOf(found)
  }
}

function sed(argv: readonly string[]): Nested | undefined {
  const found: Nested[] = []
  for (let i = 1; i < argv.length; i++) {
    const script = argv[i]!
    if (i > 1 && argv[i - 1] !== '-e' && argv[i - 1] !== '--expression' && argv.slice(1, i).some((a) => !a.startsWith('-'))) continue
    for (const part of script.split(/\n|;/)) {
      const m = /^\s*(?:\d+|\$|\/[^/]*\/)?\s*e\s+(.+)$/s.exec(part)
      if (m) found.push({ kind: 'string', text: m[1]!, exclude: [i], label: 'sed e' })
      else if (/^\s*(?:\d+|\$|\/[^/]*\/)?\s*(?:e\s*$|s(.).*\1.*\1[gpiImM0-9]*e)/.test(part))
        found.push({ kind: 'string', text: 'eval "$SED_PATTERN_SPACE"', exclude: [i], label: 'sed e' })
    }
  }
  return allOf(found)
}

/**
 * Options whose value is a command the program runs (through a shell or split into words): every one given,
 * since a harmless first (`tar --to-command=true -I CMD`, `rsync -e ssh --rsh=CMD`) must not hide the rest.
 * Long options match as GNU getopt does, by an unambiguous prefix (`--use-comp=CMD`), so at least `minimum`
 * characters of the name. `value` picks the command out of the option's value (`exec=CMD` of tar's checkpoint action).
 */
function commandOptions(options: {
  short?: string
  long: readonly string[]
  minimum?: number
  value?: (v: string) => string | undefined
}): (argv: readonly string[]) => Nested | undefined {
  const pick = options.value ?? ((v: string) => v)
  const longName = (arg: string): string | undefined => {
    const name = arg.slice(2).split('=')[0]!
    return name.length >= (options.minimum ?? 4) ? options.long.find((l) => l.startsWith(name)) : undefined
  }
  return (argv) => {
    const found: Nested[] = []
    for (let i = 1; i < argv.length; i++) {
      const arg = argv[i]!
      if (arg === '--') break
      const inline = arg.startsWith('--') ? arg.includes('=') : arg !== options.short
      const matches = arg.startsWith('--') ? longName(arg) !== undefined : options.short !== undefined && arg.startsWith(options.short)
      if (!matches) continue
      const index = inline ? i : i + 1
      const value = inline ? (arg.startsWith('--') ? arg.slice(arg.indexOf('=') + 1) : arg.slice(options.short!.length)) : argv[i + 1]
      const text = value === undefined ? undefined : pick(value)
      if (text !== undefined && text.trim() !== '') found.push({ kind: 'string', text, exclude: [index], label: arg.split('=')[0]! })
      if (!inline) i++
    }
    return allOf(found)
  }
}

/** GNU tar: `--checkpoint-action=exec=CMD`, `-I`/`--use-compress-program`, `--to-command`, `-F`/`--info-script`, `--rsh-command`. */
const tarLongCommands = [
  commandOptions({ long: ['checkpoint-action'], value: (v) => /^exec=(.*)$/s.exec(v)?.[1] }),
  commandOptions({ long: ['use-compress-program', 'to-command', 'info-script', 'new-volume-script', 'rsh-command'] }),
]
/** tar's short options that take a value; `I` and `F` name commands. */
const TAR_VALUE_LETTERS = 'bCfFgHIKLNTVX'

function tar(argv: readonly string[]): Nested | undefined {
  const found = tarLongCommands.map((find) => find(argv))
  const command = (letter: string, value: string | undefined, index: number): void => {
    if ((letter === 'I' || letter === 'F') && value !== undefined && value.trim() !== '') found.push({ kind: 'string', text: value, exclude: [index], label: `-${letter}` })
  }
  let i = 1
  // The old style (`tar cIf CMD x.tar`): the first argument's letters take their values from the next arguments in turn.
  if (argv[1] !== undefined && !argv[1].startsWith('-')) {
    i = 2
    for (const letter of argv[1]) {
      if (!TAR_VALUE_LETTERS.includes(letter)) continue
      command(letter, argv[i], i)
      i++
    }
  }
  // A cluster of short options ends at the first that takes a value, attached or in the next argument (`-cvI CMD`, `-ICMD`).
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') break
    if (!/^-[^-]/.test(arg)) continue
    for (let k = 1; k < arg.length; k++) {
      const letter = arg[k]!
      if (!TAR_VALUE_LETTERS.includes(letter)) continue
      const attached = arg.slice(k + 1)
      if (attached === '') command(letter, argv[++i], i)
      else command(letter, attached, i)
      break
    }
  }
  return allOf(found)
}

/** `rsync -e CMD` / `--rsh=CMD`: the remote shell rsync starts here; `--rsync-path` runs on the other side. */
const rsyncCommands = [commandOptions({ short: '-e', long: ['rsh'], minimum: 3 }), commandOptions({ long: ['rsync-path'] })]

/** Go's toolchain hooks: `-exec PROG` (go run/test run the binary through it), `-toolexec PROG`, `-vettool PROG`; one or two dashes, `=` or a separate value. */
function goHooks(argv: readonly string[]): Nested | undefined {
  const found: Nested[] = []
  for (let i = 2; i < argv.length; i++) {
    const m = /^--?(exec|toolexec|vettool)(?:=(.*))?$/s.exec(argv[i]!)
    if (!m) continue
    const index = m[2] === undefined ? i + 1 : i
    const text = m[2] ?? argv[++i]
    // The program is run with the compiled binary (or tool) as its argument.
    if (text !== undefined && text.trim() !== '') found.push({ kind: 'string', text: `${text} ./pkg.test`, exclude: [index], label: `-${m[1]}` })
  }
  return allOf(found)
}

/** Cargo's `--config KEY=VALUE` keys that name a program it runs: a target's runner or linker, the rustc wrapper, rustc itself. */
function cargoConfig(argv: readonly string[]): Nested | undefined {
  const found: Nested[] = []
  for (let i = 1; i < argv.length; i++) {
    const inline = argv[i]!.startsWith('--config=') ? argv[i]!.slice('--config='.length) : undefined
    const value = inline ?? (argv[i] === '--config' ? argv[i + 1] : undefined)
    if (value === undefined) continue
    const index = inline === undefined ? i + 1 : i
    const m = /^\s*(?:target\.[^=]*\.(?:runner|linker)|build\.(?:rustc-wrapper|rustc-workspace-wrapper|rustc)|host\.linker)\s*=\s*(.*)$/s.exec(value)
    // TOML: a string, or an array of strings (program and arguments).
    const words = m ? [...m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((w) => w[1] ?? w[2] ?? '') : []
    if (words.length > 0)
      found.push({ kind: 'string', text: words.map((w) => (/^[\w./@:=+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' '), exclude: [index], label: '--config' })
  }
  return allOf(found)
}

/** Finders of nested command strings, by program. */
export const NESTED_COMMANDS: Readonly<Record<string, (argv: readonly string[], stdin?: string) => Nested | undefined>> = {
  ssh: sshRemoteCommand,
  npx,
  bunx: npx,
  pnpx: npx,
  npm: subcommandRunner(['exec', 'x']),
  pnpm: subcommandRunner(['exec', 'dlx']),
  yarn: subcommandRunner(['exec', 'dlx']),
  bun: subcommandRunner(['x']),
  vim,
  vi: vim,
  nvim: vim,
  ex: vim,
  view: vim,
  gvim: vim,
  sqlite3: metaCommand(/^\s*\.(?:shell|system)\s+(.+)$/s),
  psql: metaCommand(/^\s*\\!\s*(.+)$/s),
  mysql: metaCommand(/^\s*(?:\\!|system)\s+(.+)$/s),
  mariadb: metaCommand(/^\s*(?:\\!|system)\s+(.+)$/s),
  sed,
  gsed: sed,
  tar,
  gtar: tar,
  bsdtar: commandOptions({ long: ['use-compress-program'] }),
  rsync: (argv) => allOf(rsyncCommands.map((find) => find(argv))),
  zip: commandOptions({ short: '-TT', long: ['unzip-command'] }),
  man: commandOptions({ short: '-P', long: ['pager', 'html'] }),
  // `strace -o '|CMD'` / `-o '!CMD'` pipes the trace into CMD.
  strace: commandOptions({ short: '-o', long: ['output'], value: (v) => /^[|!](.*)$/s.exec(v)?.[1] }),
  // socat's `EXEC:cmd` and `SYSTEM:cmd` addresses run a command (options after a comma).
  socat: (argv) =>
    allOf(
      argv.slice(1).map((a, i) => {
        const m = /^(?:exec|system):(.*?)(?:,[\w-]+(?:=[^,]*)?)*$/is.exec(a)
        return m ? { kind: 'string' as const, text: m[1]!, exclude: [i + 1], label: a.split(':')[0]! } : undefined
      }),
    ),
  go: goHooks,
  cargo: cargoConfig,
}

/** `read [-r] [-a] NAME...` from known input: the first line split on whitespace, the rest to the last name. */
export function readFields(args: readonly string[], text: string): Map<string, string> {
  const names = args.filter((a) => !a.startsWith('-') && /^[A-Za-z_]\w*$/.test(a))
  const line = text.split('\n')[0] ?? ''
  const words = line.trim().split(/\s+/)
  const out = new Map<string, string>()
  const targets = names.length > 0 ? names : ['REPLY']
  targets.forEach((name, i) => {
    out.set(name, i === targets.length - 1 ? words.slice(i).join(' ') : (words[i] ?? ''))
  })
  return out
}
