/**
 * Environment variables that make ordinary programs load code or read another config: preload and audit
 * libraries (`LD_PRELOAD`), module search paths that can shadow a tool (`PYTHONPATH=/tmp/x python -m pip`),
 * interpreter option variables (`PERL5OPT=-Mx`, `RUBYOPT=-rx`, `JAVA_TOOL_OPTIONS=-javaagent:x`),
 * startup files (`PYTHONSTARTUP`), variables that move a tool's config (`NPM_CONFIG_USERCONFIG`, `PIP_CONFIG_FILE`,
 * `CURL_HOME`, `WGETRC`, `GIT_EXEC_PATH`) and archive tools' option variables (`TAR_OPTIONS`). The one mechanism:
 * such a value may name only places whose code svc treats as the project's own or the system's (the working
 * directory and below, root-owned system directories); anything else, or a value a command computes, is code
 * svc cannot see: the `code_variable` signal. Option variables are also judged as the same options on the
 * program's command line (`TAR_OPTIONS=--to-command=sh` is `tar --to-command=sh`).
 */
import { lexicalPath } from './paths.ts'
import type { AnalysisState, Scope } from './state.ts'

/** Variables whose value is a list of files or directories code is loaded from (`:`-separated; LD_PRELOAD also by spaces). */
const LOAD_PATHS: ReadonlySet<string> = new Set([
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'DYLD_FRAMEWORK_PATH',
  'GCONV_PATH',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'PYTHONUSERBASE',
  'PERL5LIB',
  'PERLLIB',
  'RUBYLIB',
  'NODE_PATH',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'NPM_CONFIG_USERCONFIG',
  'npm_config_userconfig',
  'NPM_CONFIG_GLOBALCONFIG',
  'npm_config_globalconfig',
  'PIP_CONFIG_FILE',
  'CURL_HOME',
  'WGETRC',
  'INPUTRC',
  'GEMRC',
  'BUNDLE_GEMFILE',
  'CARGO_HOME',
])

/**
 * Variables naming a compiler, linker or wrapper the build runs as a command (`CC='sh -c …' make`,
 * `RUSTC_WRAPPER=./x cargo build`, `CARGO_TARGET_<TRIPLE>_RUNNER`): a known value is analysed as that command.
 * An unknown one (`CC=$XCC`, `CC="$(brew --prefix llvm)/bin/clang"` in CI) is not judged: those name toolchains.
 */
const TOOL_COMMAND = /^(?:CC|CXX|CPP|LD|AR|FC|HOSTCC|RUSTC|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|CARGO_BUILD_RUSTC_WRAPPER|CARGO_BUILD_RUSTC|CARGO_TARGET_\w+_(?:RUNNER|LINKER))$/

/** Option variables and the program whose command-line options they are. */
const OPTION_VARIABLES: Readonly<Record<string, string>> = {
  PERL5OPT: 'perl',
  RUBYOPT: 'ruby',
  JAVA_TOOL_OPTIONS: 'java',
  _JAVA_OPTIONS: 'java',
  JDK_JAVA_OPTIONS: 'java',
  MAVEN_OPTS: 'java',
  GRADLE_OPTS: 'java',
  TAR_OPTIONS: 'tar',
  GOFLAGS: 'go build',
}

/** Options in those variables that load a file as code: `-M`/`-m` (Perl), `-r` (Ruby), `-javaagent:`/`-agentpath:` (JVM). */
const LOADING_OPTION = /^(?:-[Mmr]|-javaagent:|-agentpath:|-agentlib:|-XX:OnOutOfMemoryError=|-XX:OnError=)(.*)$/

/** Root-owned places a system's own libraries and modules live in. */
const SYSTEM = /^\/(?:usr|lib|lib32|lib64|opt|nix\/store|System|Library\/Frameworks|snap)(?:\/|$)/

/** A path svc treats as the project's own or the system's. */
function trusted(st: AnalysisState, scope: Scope, raw: string): boolean {
  if (raw === '' || raw === '.') return true
  // A bare library name (`libjemalloc.so.2`) is looked up in the system's library directories.
  if (!raw.includes('/') && /\.so(?:\.\d+)*$/.test(raw)) return true
  const path = lexicalPath(raw, { home: st.options.home, ...(scope.cwd ? { cwd: scope.cwd } : {}) })
  if (path === undefined) return false
  if (SYSTEM.test(path) && !/\/tmp(?:\/|$)/.test(path)) return true
  return scope.cwd !== undefined && (path === scope.cwd || path.startsWith(`${scope.cwd}/`))
}

/**
 * Judges an assignment to `name` (text undefined: only run time knows it). Returns shell text to analyse: the
 * program's own command line with an option variable's options, or the command a toolchain variable names.
 */
export function codeVariable(st: AnalysisState, scope: Scope, name: string, text: string | undefined, programs: readonly string[]): string | undefined {
  if (TOOL_COMMAND.test(name)) return text === undefined || text.trim() === '' ? undefined : text
  const loads = LOAD_PATHS.has(name)
  const program = OPTION_VARIABLES[name]
  if (!loads && program === undefined) return undefined
  // Built by a command (`LD_PRELOAD=$(cat f)`): refused. Built from inherited variables (`PYTHONPATH="$PYTHONPATH:src"`,
  // a value an earlier CI step exported) it is the environment the user gave the agent, as NODE_OPTIONS is.
  if (text === undefined) {
    if (programs.length > 0) st.signals.add('code_variable')
    return undefined
  }
  if (loads) {
    const parts = text.split(name === 'LD_PRELOAD' ? /[:\s]+/ : /:/).filter((p) => p !== '')
    if (!parts.every((p) => trusted(st, scope, p))) st.signals.add('code_variable')
    return undefined
  }
  for (const word of text.split(/\s+/)) {
    const file = LOADING_OPTION.exec(word)?.[1]
    if (file === undefined) continue
    // `-MPOSIX`, `-rjson`: a module from the library path; a path, or a command to run, must be trusted.
    const path = file.replace(/^=/, '').split(/[=,]/)[0]!
    if (/^-XX:On/.test(word) || (path.includes('/') && !trusted(st, scope, path)) || /[^\w:./=,+@-]/.test(file)) st.signals.add('code_variable')
  }
  return `${program} ${text}`
}
