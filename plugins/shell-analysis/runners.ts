/**
 * Programs that run a command they are given, beyond the plain wrappers of programs.ts: runners behind a
 * subcommand (`uv run`, `poetry run`, `bundle exec`, `aws-vault exec PROFILE --`), options whose value is a
 * shell string (`nodemon --exec`, `nix-shell --run`, `flock F -c`), runners whose operands are shell strings
 * (`tmux new -d 'cmd'`, `hyperfine`, `concurrently`), and, for any other program, the generic shapes that
 * mean "run this": `-- CMD...`, `--exec CMD`, `-c 'STRING'`. A table alone is always too short; the generic
 * shapes catch the runners nobody listed, at the price of analysing some arguments that are only data.
 */
import { INTERPRETERS, programName, SHELLS, WRAPPERS } from './programs.ts'
import { SUBCOMMAND_RUNNERS, RUNNER_VALUES, ARGV_RUNNERS, BWRAP_VALUES, STRING_OPTIONS, STRING_OPERANDS, NOT_RUNNERS } from './runner-tables.ts'

/** Where the wrapped command is: an argv from `start`, or shell strings at `strings`. */
export type Runner =
  | { readonly kind: 'argv'; readonly start: number; readonly label: string }
  | { readonly kind: 'strings'; readonly indexes: readonly number[]; readonly label: string }

/** The command a runner runs, if `program` is one (by table or by a generic shape). */
export function runnerOf(program: string, argv: readonly string[]): Runner | undefined {
  const subs = SUBCOMMAND_RUNNERS[program]
  if (subs) {
    let i = 1
    while (i < argv.length && argv[i]!.startsWith('-')) i += RUNNER_VALUES.has(argv[i]!) ? 2 : 1
    const sub = argv[i]
    if (sub !== undefined && Object.hasOwn(subs, sub)) return { kind: 'argv', start: afterOptions(argv, i + 1, subs[sub]!), label: `${program} ${sub}` }
    if (program === 'uvx' && sub !== undefined) return { kind: 'argv', start: i, label: program }
  }
  if (program === 'nix') {
    // `nix develop -c CMD ARGS...`, `nix shell PKG --command CMD ARGS...`: argv after the option.
    const at = argv.findIndex((a) => a === '-c' || a === '--command')
    if (at > 0 && at + 1 < argv.length) return { kind: 'argv', start: at + 1, label: 'nix' }
  }
  const strings = STRING_OPTIONS[program]
  if (strings) {
    const indexes = argv.flatMap((a, i) => (strings.includes(a) && i + 1 < argv.length ? [i + 1] : strings.some((o) => o.startsWith('--') && a.startsWith(`${o}=`)) ? [i] : []))
    if (program === 'tmux' || program === 'screen') indexes.push(...tmuxCommand(argv))
    if (indexes.length > 0) return { kind: 'strings', indexes, label: program }
  }
  if (program === 'bwrap') {
    let i = 1
    while (i < argv.length && argv[i]!.startsWith('--') && argv[i] !== '--') i += 1 + (BWRAP_VALUES[argv[i]!] ?? 0)
    if (argv[i] === '--') i++
    return i < argv.length ? { kind: 'argv', start: i, label: program } : undefined
  }
  // `entr -s 'CMD'`: the first operand is given to $SHELL.
  if (program === 'entr' && argv.some((a) => /^-[a-z]*s[a-z]*$/.test(a))) {
    const at = argv.findIndex((a, i) => i > 0 && !a.startsWith('-'))
    if (at > 0) return { kind: 'strings', indexes: [at], label: 'entr -s' }
  }
  if (STRING_OPERANDS.has(program)) return { kind: 'strings', indexes: argv.flatMap((a, i) => (i > 0 && !a.startsWith('-') ? [i] : [])), label: program }
  if (Object.hasOwn(ARGV_RUNNERS, program)) {
    const start = afterOptions(argv, 1, ARGV_RUNNERS[program]!)
    if (start < argv.length) return { kind: 'argv', start, label: program }
  }
  return NOT_RUNNERS.has(program) ? undefined : genericShape(program, argv)
}

/** Index of the first argument after `from` that is neither an option (with its value) nor one of `positionals`. */
function afterOptions(argv: readonly string[], from: number, positionals: number): number {
  let i = from
  let left = positionals
  while (i < argv.length) {
    const a = argv[i]!
    if (a === '--') return i + 1
    if (a.startsWith('-') && a.length > 1) {
      i += RUNNER_VALUES.has(a) ? 2 : 1
      continue
    }
    if (/^[A-Za-z_]\w*=/.test(a)) {
      i++
      continue
    }
    if (left-- > 0) {
      i++
      continue
    }
    return i
  }
  return i
}

/** tmux `new[-session]`/`new-window`/`split-window`/`respawn-pane` and screen: the trailing shell command. */
function tmuxCommand(argv: readonly string[]): number[] {
  const verbs = new Set([
    'new',
    'new-session',
    'neww',
    'new-window',
    'splitw',
    'split-window',
    'respawn-pane',
    'respawnp',
    'respawn-window',
    'run-shell',
    'run',
    'display-popup',
    'popup',
    'send-keys',
    'send',
  ])
  const at = argv.findIndex((a, i) => i > 0 && verbs.has(a))
  if (at === -1) return argv[0]?.endsWith('screen') ? operandsAfter(argv, 1) : []
  return operandsAfter(argv, at + 1)
}

const TMUX_VALUES = new Set(['-t', '-s', '-n', '-c', '-x', '-y', '-e', '-F', '-l', '-w', '-h', '-S', '-L', '-f', '-T'])

function operandsAfter(argv: readonly string[], from: number): number[] {
  const out: number[] = []
  for (let i = from; i < argv.length; i++) {
    if (TMUX_VALUES.has(argv[i]!)) i++
    else if (!argv[i]!.startsWith('-') && argv[i] !== 'Enter' && argv[i] !== 'C-m') out.push(i)
  }
  return out
}

/**
 * Programs that, named as an operand of a program nobody listed, most likely run there (`setarch x86_64 rm -rf ~`,
 * `pkexec rm …`, `sshpass -p x ssh …`): the ones gates name, shells, interpreters and wrappers. Running them as a
 * command too only adds what gates see; the outer command is still recorded as written.
 */
const OPERAND_PROGRAMS: ReadonlySet<string> = new Set([
  ...['rm', 'rmdir', 'unlink', 'shred', 'srm', 'wipe', 'dd', 'wipefs', 'mkfs', 'fdisk', 'sfdisk', 'parted', 'mv', 'cp', 'ln', 'chmod', 'chown', 'chgrp', 'truncate', 'tee'],
  ...['git', 'curl', 'wget', 'kill', 'pkill', 'killall', 'svc', 'find', 'xargs', 'rsync', 'scp', 'sftp', 'ssh', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'crontab'],
  ...['systemctl', 'launchctl', 'docker', 'podman', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'deno', 'pip', 'pip3', 'make', 'sed', 'awk', 'tar', 'unzip', 'rimraf', 'trash'],
  ...SHELLS,
  ...INTERPRETERS.keys(),
  ...WRAPPERS.keys(),
])

/** Programs whose operands name programs as data: package managers and manuals (`apt install git curl`, `man git push`). */
const PACKAGE_TOOLS: ReadonlySet<string> = new Set([
  'apt',
  'apt-get',
  'apt-cache',
  'aptitude',
  'dpkg',
  'rpm',
  'brew',
  'dnf',
  'yum',
  'zypper',
  'pacman',
  'yay',
  'paru',
  'apk',
  'port',
  'emerge',
  'pkg',
  'nix-env',
  'choco',
  'winget',
  'scoop',
  'flatpak',
  'which',
  'type',
  'whereis',
  'whatis',
  'apropos',
  'man',
  'info',
  'tldr',
  'help',
  'cheat',
  'pgrep',
  'pidof',
  'update-alternatives',
])

/** `-- CMD...`, `--exec CMD` / `--exec=CMD`, `-c 'STRING WITH SPACES'` on a program nobody listed. */
function genericShape(program: string, argv: readonly string[]): Runner | undefined {
  const dashes = argv.indexOf('--')
  if (dashes > 0 && dashes + 1 < argv.length) return { kind: 'argv', start: dashes + 1, label: `${program} --` }
  const indexes: number[] = []
  argv.forEach((a, i) => {
    if (i === 0) return
    if ((a === '--exec' || a === '--command' || a === '--run' || a === '--cmd' || a === '-c') && i + 1 < argv.length && /\s/.test(argv[i + 1]!)) indexes.push(i + 1)
    else if (/^--(exec|command|run|cmd)=.*\s/.test(a)) indexes.push(i)
  })
  return indexes.length > 0 ? { kind: 'strings', indexes, label: program } : undefined
}

/**
 * Where a program nobody listed names a known program among its operands (`setarch x86_64 rm -rf ~`), or -1.
 * The caller analyses that tail as a command too, besides the program itself. A program named last runs
 * nothing worth a look (`pkexec bash`), and there it is mostly data (`which rm`, `atuin init bash`).
 */
export function operandProgram(program: string, argv: readonly string[]): number {
  if (NOT_RUNNERS.has(program) || PACKAGE_TOOLS.has(program) || Object.hasOwn(SUBCOMMAND_RUNNERS, program) || Object.hasOwn(ARGV_RUNNERS, program)) return -1
  return argv.findIndex((a, i) => i > 0 && i < argv.length - 1 && !a.startsWith('-') && OPERAND_PROGRAMS.has(programName(a).replace(/^mkfs\..*/, 'mkfs')))
}

/**
 * The shell text at a string index: the value after `--opt=` when written inline; for gdb the command of
 * its `shell CMD` / `!CMD`, for expect the commands its `spawn`, `exec` and `system` lines start.
 */
export function runnerString(arg: string, program = ''): string {
  const m = /^--[\w-]+=(.*)$/s.exec(arg)
  const text = m ? m[1]! : arg
  return STRING_LANGUAGES[program]?.(text) ?? text
}

/** Runners whose string is in a language of their own: the shell command in it. */
const STRING_LANGUAGES: Readonly<Record<string, (text: string) => string>> = {
  gdb: (text) => /^\s*(?:shell\b|!)\s*(.*)$/s.exec(text)?.[1] ?? text,
  expect: (text) =>
    text
      .split(/[\n;]/)
      .map((line) => line.replace(/^\s*(?:spawn|exec|system)\s+(?:-\S+\s+)*/, ''))
      .join('\n'),
}
