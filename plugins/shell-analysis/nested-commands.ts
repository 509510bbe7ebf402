/**
 * Programs that carry a shell command inside their arguments: `ssh HOST CMD...` (the remote side runs it
 * through a shell), `npx -c CMD` (`npx PKG ...` runs PKG like a wrapper), editors' and databases' shell
 * escapes, and options whose value is a command (`tar --checkpoint-action=exec=CMD`, `rsync -e CMD`,
 * `zip -TT CMD`, `man -P CMD`). git's are in git-semantics.ts, ssh's local ones in ssh-commands.ts.
 */

/** A shell string nested in the argv, or (npx) the index where the wrapped argv starts. */
export type Nested =
  | { readonly kind: 'string'; readonly text: string; readonly exclude: number[]; readonly label: string }
  | { readonly kind: 'argv'; readonly start: number; readonly exclude: number[]; readonly text: string; readonly label: string }

const SSH_VALUE_OPTIONS = 'BbcDEeFIiJLlmOopQRSWw'

function ssh(argv: readonly string[]): Nested | undefined {
  // OpenSSH keeps reading options after the destination (`ssh host -i KEY cmd`): the command is the first
  // operand after the destination that is not an option or an option's value.
  let i = 1
  let host = false
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      // `--` ends the options: the destination follows unless it came already.
      i += host ? 1 : 2
      break
    }
    if (!arg.startsWith('-')) {
      if (host) break
      host = true
      continue
    }
    if (arg.length === 2 && SSH_VALUE_OPTIONS.includes(arg[1]!)) i++
  }
  const commandStart = i
  if (commandStart >= argv.length) return undefined
  const indexes = argv.map((_, k) => k).filter((k) => k >= commandStart)
  return { kind: 'string', text: argv.slice(commandStart).join(' '), exclude: indexes, label: 'ssh' }
}


/** Options of package runners that take a value in the next argument (`--package x`, pnpm `--filter x`). */
const RUNNER_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-p', '--package', '--filter', '-F', '--workspace', '-w', '--prefix', '-C', '--dir', '--cwd', '--registry', '--cache'])

function npx(argv: readonly string[]): Nested | undefined {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if ((arg === '-c' || arg === '--call' || arg === '--shell-mode') && argv[i + 1] !== undefined) return { kind: 'string', text: argv[i + 1]!, exclude: [i + 1], label: '-c' }
    if (arg.startsWith('--call=')) return { kind: 'string', text: arg.slice(7), exclude: [i], label: '-c' }
    if (RUNNER_VALUE_OPTIONS.has(arg)) {
      i++
      continue
    }
    if (arg.startsWith('-')) continue
    return { kind: 'argv', start: i, exclude: [], text: '', label: '' }
  }
  return undefined
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

/** Vim-family `-c CMD`, `--cmd CMD`, `+CMD`: an ex command `!CMD` (or `silent !CMD`) runs CMD in a shell. */
function vim(argv: readonly string[]): Nested | undefined {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    const value = arg === '-c' || arg === '--cmd' ? argv[i + 1] : arg.startsWith('+') ? arg.slice(1) : undefined
    const index = arg.startsWith('+') ? i : i + 1
    const m = value === undefined ? null : /^[\s:]*(?:(?:silent|sil|exe|execute|keepalt)!?\s+)*(?:\d*,?\d*|%)?(?:r(?:ead)?\s*|w(?:rite)?\s*)?!(.+)$/s.exec(value)
    if (m) return { kind: 'string', text: m[1]!, exclude: [index], label: '-c !' }
  }
  return undefined
}

/** vim `-c 'call system("CMD")'` / `:!CMD`: the ex command runs CMD in a shell. */
function vimAll(argv: readonly string[]): Nested | undefined {
  const bang = vim(argv)
  if (bang) return bang
  for (let i = 1; i < argv.length; i++) {
    const m = /\bsystem(?:list)?\s*\(\s*(['"])(.*?)\1/s.exec(argv[i]!)
    if (m && (argv[i - 1] === '-c' || argv[i - 1] === '--cmd' || argv[i]!.startsWith('+'))) return { kind: 'string', text: m[2]!, exclude: [i], label: '-c system()' }
  }
  return undefined
}

/**
 * Database shells and sed that run shell commands from their own language: `sqlite3 db '.shell CMD'`,
 * `psql -c '\! CMD'`, `mysql -e 'system CMD'`, GNU `sed 'e CMD'` (and `s/x/CMD/e`, whose command is the
 * edited text: unknown, so flagged by the caller through an empty string).
 */
function metaCommand(pattern: RegExp): (argv: readonly string[], stdin?: string) => Nested | undefined {
  return (argv, stdin) => {
    for (let i = 1; i < argv.length; i++) {
      const m = pattern.exec(argv[i]!)
      if (m) return { kind: 'string', text: m[1]!, exclude: [i], label: 'shell escape' }
    }
    // The same escapes in a script read from stdin (`sqlite3 db <<< '.shell CMD'`), line by line.
    const commands = (stdin ?? '').split('\n').flatMap((line) => pattern.exec(line)?.[1] ?? [])
    return commands.length > 0 ? { kind: 'string', text: commands.join('\n'), exclude: [], label: 'shell escape (stdin)' } : undefined
  }
}

function sed(argv: readonly string[]): Nested | undefined {
  for (let i = 1; i < argv.length; i++) {
    const script = argv[i]!
    if (i > 1 && argv[i - 1] !== '-e' && argv[i - 1] !== '--expression' && argv.slice(1, i).some((a) => !a.startsWith('-'))) continue
    for (const part of script.split(/\n|;/)) {
      const m = /^\s*(?:\d+|\$|\/[^/]*\/)?\s*e\s+(.+)$/s.exec(part)
      if (m) return { kind: 'string', text: m[1]!, exclude: [i], label: 'sed e' }
      if (/^\s*(?:\d+|\$|\/[^/]*\/)?\s*(?:e\s*$|s(.).*\1.*\1[gpiImM0-9]*e)/.test(part)) return { kind: 'string', text: 'eval "$SED_PATTERN_SPACE"', exclude: [i], label: 'sed e' }
    }
  }
  return undefined
}

/**
 * Options whose value is a command the program runs (through a shell or split into words): the first found.
 * Long options match as GNU getopt does, by an unambiguous prefix (`--use-comp=CMD`), so at least `minimum`
 * characters of the name. `value` picks the command out of the option's value (`exec=CMD` of tar's checkpoint action).
 */
function commandOptions(options: { short?: string; long: readonly string[]; minimum?: number; value?: (v: string) => string | undefined }): (argv: readonly string[]) => Nested | undefined {
  const pick = options.value ?? ((v: string) => v)
  const longName = (arg: string): string | undefined => {
    const name = arg.slice(2).split('=')[0]!
    return name.length >= (options.minimum ?? 4) ? options.long.find((l) => l.startsWith(name)) : undefined
  }
  return (argv) => {
    for (let i = 1; i < argv.length; i++) {
      const arg = argv[i]!
      if (arg === '--') return undefined
      let value: string | undefined
      let index = i
      if (arg.startsWith('--') && longName(arg) !== undefined) {
        value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[i + 1]
        index = arg.includes('=') ? i : i + 1
      } else if (options.short !== undefined && arg.startsWith(options.short)) {
        value = arg === options.short ? argv[i + 1] : arg.slice(options.short.length)
        index = arg === options.short ? i + 1 : i
      }
      const text = value === undefined ? undefined : pick(value)
      if (text !== undefined && text.trim() !== '') return { kind: 'string', text, exclude: [index], label: arg.split('=')[0]! }
    }
    return undefined
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
  for (const find of tarLongCommands) {
    const found = find(argv)
    if (found) return found
  }
  const command = (letter: string, value: string | undefined, index: number): Nested | undefined =>
    (letter === 'I' || letter === 'F') && value !== undefined && value.trim() !== '' ? { kind: 'string', text: value, exclude: [index], label: `-${letter}` } : undefined
  let i = 1
  // The old style (`tar cIf CMD x.tar`): the first argument's letters take their values from the next arguments in turn.
  if (argv[1] !== undefined && !argv[1].startsWith('-')) {
    i = 2
    for (const letter of argv[1]) {
      if (!TAR_VALUE_LETTERS.includes(letter)) continue
      const found = command(letter, argv[i], i)
      if (found) return found
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
      const found = attached === '' ? command(letter, argv[i + 1], i + 1) : command(letter, attached, i)
      if (found) return found
      if (attached === '') i++
      break
    }
  }
  return undefined
}

/** `rsync -e CMD` / `--rsh=CMD`: the remote shell rsync starts here (`--rsync-path` runs on the other side). */
const rsyncCommands = [commandOptions({ short: '-e', long: ['rsh'], minimum: 3 }), commandOptions({ long: ['rsync-path'] })]

/** Finders of nested command strings, by program. */
export const NESTED_COMMANDS: Readonly<Record<string, (argv: readonly string[], stdin?: string) => Nested | undefined>> = {
  ssh,
  npx,
  bunx: npx,
  pnpx: npx,
  npm: subcommandRunner(['exec', 'x']),
  pnpm: subcommandRunner(['exec', 'dlx']),
  yarn: subcommandRunner(['exec', 'dlx']),
  bun: subcommandRunner(['x']),
  vim: vimAll,
  vi: vimAll,
  nvim: vimAll,
  ex: vimAll,
  view: vimAll,
  gvim: vimAll,
  sqlite3: metaCommand(/^\s*\.(?:shell|system)\s+(.+)$/s),
  psql: metaCommand(/^\s*\\!\s*(.+)$/s),
  mysql: metaCommand(/^\s*(?:\\!|system)\s+(.+)$/s),
  mariadb: metaCommand(/^\s*(?:\\!|system)\s+(.+)$/s),
  sed,
  gsed: sed,
  tar,
  gtar: tar,
  bsdtar: commandOptions({ long: ['use-compress-program'] }),
  rsync: (argv) => rsyncCommands[0]!(argv) ?? rsyncCommands[1]!(argv),
  zip: commandOptions({ short: '-TT', long: ['unzip-command'] }),
  man: commandOptions({ short: '-P', long: ['pager', 'html'] }),
  // `strace -o '|CMD'` / `-o '!CMD'` pipes the trace into CMD.
  strace: commandOptions({ short: '-o', long: ['output'], value: (v) => /^[|!](.*)$/s.exec(v)?.[1] }),
}

/** `read [-r] [-a] NAME...` from known input: the first line split on whitespace, the rest to the last name. */
export function readFields(args: readonly string[], text: string): Map<string, string> {
  const names = args.filter((a) => !a.startsWith('-') && /^[A-Za-z_]\w*$/.test(a))
  const line = text.split('\n')[0] ?? ''
  const words = line.trim().split(/\s+/)
  const out = new Map<string, string>()
  const targets = names.length > 0 ? names : ['REPLY']
  targets.forEach((name, i) => out.set(name, i === targets.length - 1 ? words.slice(i).join(' ') : (words[i] ?? '')))
  return out
}
