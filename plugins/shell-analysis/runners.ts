/**
 * Programs that run a command they are given, beyond the plain wrappers of programs.ts: runners behind a
 * subcommand (`uv run`, `poetry run`, `bundle exec`, `aws-vault exec PROFILE --`), options whose value is a
 * shell string (`nodemon --exec`, `nix-shell --run`, `flock F -c`), runners whose operands are shell strings
 * (`tmux new -d 'cmd'`, `hyperfine`, `concurrently`), and, for any other program, the generic shapes that
 * mean "run this": `-- CMD...`, `--exec CMD`, `-c 'STRING'`. A table alone is always too short; the generic
 * shapes catch the runners nobody listed, at the price of analysing some arguments that are only data.
 */
import { INTERPRETERS, programName, SHELLS, WRAPPERS } from './programs.ts'

/** Where the wrapped command is: an argv from `start`, or shell strings at `strings`. */
export type Runner =
  | { readonly kind: 'argv'; readonly start: number; readonly label: string }
  | { readonly kind: 'strings'; readonly indexes: readonly number[]; readonly label: string }

/** `PROGRAM SUBCOMMAND [options] [positionals] [--] CMD...`: subcommands and how many positionals precede CMD. */
const SUBCOMMAND_RUNNERS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  uv: { run: 0, tool: 0 },
  uvx: {},
  poetry: { run: 0 },
  pipenv: { run: 0 },
  pdm: { run: 0 },
  rye: { run: 0 },
  hatch: { run: 0 },
  pixi: { run: 0, exec: 0 },
  bundle: { exec: 0 },
  bundler: { exec: 0 },
  conda: { run: 0 },
  mamba: { run: 0 },
  micromamba: { run: 0 },
  direnv: { exec: 1 },
  mise: { exec: 0, x: 0 },
  rtx: { exec: 0, x: 0 },
  asdf: { exec: 0 },
  rbenv: { exec: 0 },
  pyenv: { exec: 0 },
  nodenv: { exec: 0 },
  goenv: { exec: 0 },
  volta: { run: 0 },
  fnm: { exec: 0 },
  nvm: { exec: 1, run: 1 },
  op: { run: 0 },
  doppler: { run: 0 },
  infisical: { run: 0 },
  'aws-vault': { exec: 1 },
  chamber: { exec: 1 },
  devbox: { run: 0 },
  dotenvx: { run: 0 },
  sops: { exec: 0, 'exec-env': 1 },
  teller: { run: 0 },
  devcontainer: { exec: 0 },
  ddev: { exec: 0 },
  tox: { exec: 0 },
  flatpak: { run: 1 },
  snap: { run: 1 },
  toolbox: { run: 0 },
  distrobox: { enter: 0 },
}

/** Options of those runners that take a value in the next argument. */
const RUNNER_VALUES: ReadonlySet<string> = new Set([
  '-n',
  '--name',
  '-p',
  '--prefix',
  '-e',
  '--environment',
  '--env',
  '--profile',
  '--project',
  '--python',
  '--with',
  '-w',
  '--directory',
  '--cwd',
  '--config',
  '--group',
  '--env-file',
  '-f',
  '--file',
  '-C',
  '--from',
  '--package',
  '--region',
  '--duration',
  '--account',
  '--vault',
  '-c',
  '--cd',
  '-k',
  '--keys',
  '-S',
])

/** Plain argv runners not in WRAPPERS (their own options end at the first operand or `--`). */
const ARGV_RUNNERS: Readonly<Record<string, number>> = {
  'env-cmd': 0,
  dotenv: 0,
  'cross-env': 0,
  systemd_run: 0,
  'systemd-run': 0,
  unshare: 0,
  firejail: 0,
  valgrind: 0,
  'xvfb-run': 0,
  watchexec: 0,
  entr: 0,
  screen: 0,
  setpriv: 0,
  prlimit: 0,
  nsenter: 0,
  bwrap: 0,
  proot: 0,
  faketime: 1,
  gosu: 1,
  'su-exec': 1,
  chroot: 1,
  cgexec: 0,
  'dbus-run-session': 0,
  'ssh-agent': 0,
  ccache: 0,
  sccache: 0,
  distcc: 0,
  perf: 1,
  rr: 1,
  heaptrack: 0,
  'py-spy': 1,
  nyc: 0,
  c8: 0,
  xcrun: 0,
  arch: 0,
  retry: 0,
  with: 0,
  'with-contenv': 0,
  flock: 1,
  tini: 0,
  'dumb-init': 0,
  catatonit: 0,
  s6: 0,
  runit: 0,
  chpst: 0,
  softlimit: 0,
  setuidgid: 1,
  envdir: 1,
  envuidgid: 1,
  sg: 1,
  gdb: 0,
  lldb: 0,
  'dbus-launch': 0,
  lxterminal: 0,
  'gnome-terminal': 0,
  xterm: 0,
  konsole: 0,
  kitty: 0,
  alacritty: 0,
  wezterm: 0,
  'x-terminal-emulator': 0,
  expect: 0,
}

/** Options of bubblewrap and their number of values (`--bind SRC DEST`): the command follows the last. */
const BWRAP_VALUES: Readonly<Record<string, number>> = {
  '--bind': 2,
  '--bind-try': 2,
  '--ro-bind': 2,
  '--ro-bind-try': 2,
  '--dev-bind': 2,
  '--dev-bind-try': 2,
  '--symlink': 2,
  '--setenv': 2,
  '--chmod': 2,
  '--file': 2,
  '--bind-data': 2,
  '--ro-bind-data': 2,
  '--overlay': 3,
  '--unsetenv': 1,
  '--chdir': 1,
  '--dev': 1,
  '--proc': 1,
  '--tmpfs': 1,
  '--mqueue': 1,
  '--dir': 1,
  '--remount-ro': 1,
  '--uid': 1,
  '--gid': 1,
  '--hostname': 1,
  '--exec-label': 1,
  '--file-label': 1,
  '--lock-file': 1,
  '--sync-fd': 1,
  '--info-fd': 1,
  '--json-status-fd': 1,
  '--block-fd': 1,
  '--userns-block-fd': 1,
  '--seccomp': 1,
  '--add-seccomp-fd': 1,
  '--cap-add': 1,
  '--cap-drop': 1,
  '--perms': 1,
  '--size': 1,
  '--overlay-src': 1,
  '--tmp-overlay': 1,
  '--ro-overlay': 1,
  '--userns': 1,
  '--userns2': 1,
  '--pidns': 1,
  '--args': 1,
  '--argv0': 1,
}

/** Runner options whose value is argv or a shell string (`-e CMD`, `--exec CMD`, `--run STRING`). */
const STRING_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  nodemon: ['--exec', '-x'],
  'nix-shell': ['--run', '--command'],
  flock: ['-c', '--command'],
  sg: ['-c'],
  tmux: [],
  watchexec: ['--shell'],
  xterm: ['-e'],
  'gnome-terminal': ['-e', '-x', '--'],
  konsole: ['-e'],
  kitty: [],
  alacritty: ['-e', '--command'],
  lxterminal: ['-e', '--command'],
  'x-terminal-emulator': ['-e'],
  gdb: ['-ex', '--eval-command'],
  expect: ['-c'],
  vagrant: ['-c', '--command'],
  'docker-compose': [],
  husky: [],
  'lint-staged': [],
}

/** Runners whose operands are each a shell string. */
const STRING_OPERANDS: ReadonlySet<string> = new Set(['hyperfine', 'concurrently', 'npm-run-all', 'run-p', 'run-s', 'parallelshell'])

/** Programs for which the generic shapes are known to mean something else. */
const NOT_RUNNERS: ReadonlySet<string> = new Set([
  'gcc',
  'g++',
  'cc',
  'c++',
  'clang',
  'clang++',
  'git',
  'docker',
  'podman',
  'kubectl',
  'tar',
  'psql',
  'mysql',
  'sqlite3',
  'redis-cli',
  'ping',
  'curl',
  'wget',
  'ls',
  'grep',
  'rg',
  'egrep',
  'fgrep',
  'head',
  'tail',
  'wc',
  'cut',
  'sort',
  'uniq',
  'du',
  'df',
  'fc',
  'make',
  'rm',
  'cp',
  'mv',
  'cat',
  'echo',
  'printf',
  'npm',
  'yarn',
  'pnpm',
  'bun',
  'cargo',
  'go',
  'jq',
  'yq',
  'sed',
  'tr',
  'kill',
  'chmod',
  'chown',
  'touch',
  'mkdir',
  'ln',
  'test',
  '[',
  'rustc',
  'javac',
  'java',
  'tsc',
  'eslint',
  'prettier',
  'vitest',
  'jest',
  'pytest',
  'mocha',
  'find',
  'xargs',
  'ssh',
  'scp',
  'rsync',
  'gh',
  'openssl',
  'zip',
  'unzip',
  '7z',
  'patch',
  'diff',
  'cmp',
])

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
