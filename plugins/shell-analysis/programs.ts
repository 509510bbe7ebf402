/**
 * What the analyser knows about programs: wrappers that run another command, shells, interpreters with
 * inline code, downloaders and decoders. Tables, not logic, so reviewers can extend them safely.
 */
import { CASE_INSENSITIVE_FS } from '../../core/index.ts'

/** How a wrapper's own options are laid out, so the wrapped command can be found after them. */
export interface WrapperSpec {
  /** Short options that take a value in the next argument (`-u root`). */
  readonly valueShort?: string
  /** Long options that take a value in the next argument when written without `=`. */
  readonly valueLong?: readonly string[]
  /** Leading positional arguments that belong to the wrapper (timeout's DURATION, flock's file). */
  readonly positionals?: number
  /** Stop-word: an exact argument after which nothing is a wrapper option. */
  readonly endOfOptions?: boolean
}

/** Programs that run the rest of their argv as a command, with the layout of their own options. */
export const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  [
    'sudo',
    {
      valueShort: 'ugCDhpRrtUT',
      valueLong: ['--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--chroot', '--role', '--type', '--other-user', '--command-timeout'],
      endOfOptions: true,
    },
  ],
  ['doas', { valueShort: 'uC', endOfOptions: true }],
  ['command', { endOfOptions: true }],
  ['builtin', { endOfOptions: true }],
  ['exec', { valueShort: 'a', endOfOptions: true }],
  ['nohup', { endOfOptions: true }],
  ['nice', { valueShort: 'n', valueLong: ['--adjustment'], endOfOptions: true }],
  ['ionice', { valueShort: 'cnpP', valueLong: ['--class', '--classdata', '--pid', '--pgid', '--uid'], endOfOptions: true }],
  ['timeout', { valueShort: 'ks', valueLong: ['--kill-after', '--signal'], positionals: 1, endOfOptions: true }],
  ['gtimeout', { valueShort: 'ks', valueLong: ['--kill-after', '--signal'], positionals: 1, endOfOptions: true }],
  ['stdbuf', { valueShort: 'ioe', valueLong: ['--input', '--output', '--error'], endOfOptions: true }],
  ['time', { valueShort: 'fo', valueLong: ['--format', '--output'], endOfOptions: true }],
  ['setsid', { endOfOptions: true }],
  ['chrt', { positionals: 1, endOfOptions: true }],
  ['taskset', { positionals: 1, endOfOptions: true }],
  ['unbuffer', { endOfOptions: true }],
  ['caffeinate', { valueShort: 'tw', endOfOptions: true }],
  ['chronic', { endOfOptions: true }],
  ['fakeroot', { endOfOptions: true }],
  ['torsocks', { endOfOptions: true }],
  ['proxychains', { valueShort: 'f', endOfOptions: true }],
  ['proxychains4', { valueShort: 'f', endOfOptions: true }],
  ['strace', { valueShort: 'eoOpPsSuU', endOfOptions: true }],
  ['ltrace', { valueShort: 'eoOpPsSuU', endOfOptions: true }],
  ['runuser', { valueShort: 'ugG', endOfOptions: true }],
  ['catchsegv', { endOfOptions: true }],
  [
    'xargs',
    {
      valueShort: 'adEeIiLlnPs',
      valueLong: ['--arg-file', '--delimiter', '--eof', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
      endOfOptions: true,
    },
  ],
  ['busybox', { endOfOptions: true }],
  ['toybox', { endOfOptions: true }],
  ['env', { valueShort: 'uCS', valueLong: ['--unset', '--chdir', '--split-string'], endOfOptions: true }],
])

/** Shells: `-c STRING` runs a string, otherwise the first operand is a script, else stdin is the script. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'fish', 'rbash', 'csh', 'tcsh', 'pwsh', 'powershell'])

/** Interpreters and their inline-code options (`python -c CODE`, `node -e CODE`). */
export const INTERPRETERS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['python', ['-c']],
  ['python2', ['-c']],
  ['python3', ['-c']],
  ['pypy', ['-c']],
  ['pypy3', ['-c']],
  ['node', ['-e', '-p', '--eval', '--print']],
  ['nodejs', ['-e', '-p', '--eval', '--print']],
  ['bun', ['-e', '--eval', '-p', '--print']],
  ['deno', ['eval']],
  ['perl', ['-e', '-E']],
  ['ruby', ['-e']],
  ['php', ['-r', '-B', '-R', '-E']],
  ['lua', ['-e']],
  ['luajit', ['-e']],
  ['Rscript', ['-e']],
  ['R', ['-e']],
  ['osascript', ['-e']],
  ['tsx', ['-e', '-p', '--eval', '--print']],
  ['ts-node', ['-e', '-p', '--eval', '--print']],
  ['ts-node-esm', ['-e', '-p', '--eval', '--print']],
  ['esno', ['-e']],
  ['vite-node', ['-e']],
  ['swift', ['-e']],
  ['julia', ['-e']],
  ['elixir', ['-e']],
  ['pwsh-c', []],
  ['groovy', ['-e']],
  ['scala', ['-e']],
  ['crystal', ['eval']],
  ['guile', ['-c']],
  ['racket', ['-e']],
  ['sbcl', ['--eval']],
  ['tclsh', []],
  ['awk', []],
  ['gawk', []],
  ['mawk', []],
  ['nawk', []],
  ['jshell', []],
  ['irb', []],
])

/** Programs whose first operand is itself program text (awk). */
export const CODE_FIRST_OPERAND: ReadonlySet<string> = new Set(['awk', 'gawk', 'mawk', 'nawk'])

/** Programs that fetch remote content. */
export const DOWNLOADERS: ReadonlySet<string> = new Set([
  'curl',
  'wget',
  'fetch',
  'http',
  'https',
  'xh',
  'aria2c',
  'lwp-request',
  'lwp-download',
  'GET',
  'ftp',
  'tftp',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'axel',
  'httpie',
  'curlie',
  'invoke-webrequest',
  'iwr',
])

/** Programs that turn data into different bytes (decode, decompress, reverse, translate). */
export const DECODERS: ReadonlySet<string> = new Set([
  'base64',
  'base32',
  'basenc',
  'xxd',
  'rev',
  'tr',
  'openssl',
  'uudecode',
  'gunzip',
  'zcat',
  'gzip',
  'bunzip2',
  'bzip2',
  'bzcat',
  'xz',
  'unxz',
  'xzcat',
  'zstd',
  'unzstd',
  'iconv',
  'od',
  'certutil',
  'recode',
])

/** Programs whose operands are data (printed or matched), never files or commands. */
export const DATA_PROGRAMS: ReadonlySet<string> = new Set([
  'echo',
  'printf',
  'true',
  'false',
  ':',
  'test',
  '[',
  'expr',
  'let',
  'read',
  'yes',
  'seq',
  'sleep',
  'alias',
  'type',
  'which',
  'whereis',
  'hash',
  'help',
  'man',
  'info',
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'unset',
  'set',
  'shopt',
  'exit',
  'return',
  'wait',
  'jobs',
  'kill',
  'tr',
])

/** Programs whose first operand is a pattern or script, not a file, unless `-e`/`-f` supplies it. */
export const PATTERN_FIRST: ReadonlySet<string> = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'sed', 'awk', 'gawk', 'mawk', 'nawk', 'jq', 'yq', 'perl', 'git-grep'])

/** Options whose value is free text (a message), per program. */
export const TEXT_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['git', ['-m', '--message', '-c', '--config', '--format', '--pretty', '--grep', '--author', '-S', '-G', '--since', '--until']],
  ['gh', ['-t', '--title', '-b', '--body', '-m', '--message', '-q', '--jq']],
  ['npm', ['-m', '--message']],
  ['hg', ['-m', '--message']],
  ['svn', ['-m', '--message']],
  ['jj', ['-m', '--message']],
  ['docker', ['-e', '--env', '-l', '--label', '--format', '-m', '--message']],
  ['curl', ['-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '-H', '--header', '-A', '--user-agent', '-X', '--request', '-u', '--user', '-w', '--write-out']],
  ['grep', ['-e', '--regexp']],
  ['rg', ['-e', '--regexp', '-g', '--glob', '-t', '--type']],
  ['find', ['-name', '-iname', '-path', '-ipath', '-regex', '-iregex', '-newer', '-type', '-user', '-group', '-perm', '-size', '-mtime', '-maxdepth', '-mindepth']],
  ['sed', ['-e', '--expression']],
  ['jq', ['--arg', '--argjson']],
])

/**
 * Basename of a program path: `/usr/bin/rm` → `rm`, `./rm` → `rm`. Lower-cased where the file system
 * ignores case (macOS, Windows), since `SUDO` or `RM` run `sudo` and `rm` there.
 */
export function programName(argv0: string): string {
  const trimmed = argv0.replace(/\/+$/, '')
  const base = trimmed.slice(trimmed.lastIndexOf('/') + 1)
  const name = base === '' ? argv0 : base
  return CASE_INSENSITIVE_FS ? name.toLowerCase() : name
}

/** `python3.12` → `python3`, `node20` stays; versioned interpreter names map to the table's key. */
export function interpreterKey(name: string): string | undefined {
  if (INTERPRETERS.has(name)) return name
  const m = /^(python[23]?|pypy3?|perl|ruby|php|lua|node)[\d.]+$/.exec(name)
  return m?.[1] !== undefined && INTERPRETERS.has(m[1]) ? m[1] : undefined
}

/** Variables a program acts on: shell startup files, `cd`'s search path, and the commands git runs for itself. */
export const STARTUP_VARIABLES: ReadonlySet<string> = new Set([
  'PATH',
  'http_proxy',
  'HTTP_PROXY',
  'https_proxy',
  'HTTPS_PROXY',
  'all_proxy',
  'ALL_PROXY',
  'ftp_proxy',
  'FTP_PROXY',
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'CDPATH',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_PAGER',
  'PAGER',
  'GIT_EDITOR',
  'EDITOR',
  'VISUAL',
  'GIT_SEQUENCE_EDITOR',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_PROXY_COMMAND',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
])
