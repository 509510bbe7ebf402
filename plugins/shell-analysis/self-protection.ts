/**
 * Two ways around svc that no single argument shows:
 * - a nested harness run whose configuration was moved or cleared (`HOME=/tmp/h claude -p …`,
 *   `CLAUDE_CONFIG_DIR=/tmp/c claude`, `CODEX_HOME=/tmp/c codex exec`, `env -i claude`): it loads no svc hook,
 *   so it runs ungated (`harness_config_moved`). Which programs and variables count comes from the harness
 *   registry (each definition's `protects.programs`, `configVariables` and `hookOffVariables`, passed in as the
 *   policy lists `$SVC_HARNESS_PROGRAMS` and `$SVC_HARNESS_VARIABLES`), so a new harness folder adds its own;
 * - stopping the daemon without naming it: every process (`kill -9 -1`, `pkill -u "$USER"`), or a pattern that
 *   matches the daemon's process (`pkill -f 'node.*daemon'`, `pkill '^no'`, `kill $(pgrep -f daemon)`)
 *   (`daemon_pattern`; the policy refuses it where something kills). Not a daemon pattern when the daemon runs as
 *   its own account: the OS keeps a kill by name from reaching it.
 */
import type { Invocation } from './invocation.ts'
import type { AnalysisState, Scope } from './state.ts'

/** Variables that move where any program finds its config (the harnesses' own come from their definitions). */
const HOME_VARIABLES: readonly string[] = ['HOME', 'XDG_CONFIG_HOME', 'USERPROFILE']
/** Scope key noting that this command cleared every variable (`env -i`); `MOVED + name` one variable (NUL cannot be in a name). */
const MOVED = '\0harness-config-moved'

/** Notes an assignment, `unset` or `env -u` of `name`; `env -i` clears them all (name undefined). */
export function noteConfigVariable(scope: Scope, name: string | undefined): void {
  scope.vars.set(name === undefined ? MOVED : `${MOVED}:${name}`, '')
}

/** A harness CLI (a registered harness's `programs`) started with its config variables moved or cleared (`variables`). */
function movedHarnessRun(st: AnalysisState, inv: Invocation, program: string): boolean {
  const { harnessPrograms = [], harnessVariables = [] } = st.options
  if (!harnessPrograms.includes(program)) return false
  return inv.scope.vars.has(MOVED) || [...HOME_VARIABLES, ...harnessVariables].some((name) => inv.scope.vars.has(`${MOVED}:${name}`))
}

/**
 * The daemon's process as `ps` shows it: its name, and its command line in the spellings it is started with.
 * (Fixed samples, not this process's own argv: the verdict must not depend on which process analyses.)
 */
const DAEMON_NAMES = ['node', 'nodejs', 'svc']
const DAEMON_COMMAND_LINES = [
  'svc daemon',
  'node cli/main.ts daemon --port 7878',
  '/usr/local/lib/node_modules/svc/node_modules/node/bin/node /usr/local/lib/node_modules/svc/cli/main.ts daemon',
  'sh cli/svc.sh daemon',
]

/** Options of pkill/pgrep/killall that take a value (so it is not taken for the pattern). */
const VALUED = new Set([
  '-u',
  '-U',
  '-g',
  '-G',
  '-P',
  '-s',
  '-t',
  '-F',
  '--signal',
  '--euid',
  '--uid',
  '--group',
  '--parent',
  '--session',
  '--terminal',
  '--pidfile',
  '--ns',
  '--nslist',
  '-o',
  '--older-than',
  '-y',
  '--younger-than',
  '-n',
])

/** Flags nested harness runs with a moved config and kills that reach the daemon without naming it. */
export function watchSelfProtection(st: AnalysisState, inv: Invocation, program: string): void {
  if (movedHarnessRun(st, inv, program)) st.signals.add('harness_config_moved')
  const args = inv.argv.slice(1)
  if (program === 'kill' && killsEveryProcess(args)) st.signals.add('daemon_pattern')
  if (program !== 'pkill' && program !== 'pgrep' && program !== 'killall' && program !== 'pidof') return
  // A daemon under its own account (`svc daemon --user`) is out of reach of a kill by name or pattern: the OS refuses
  // it, so `pkill node` only stops the developer's own processes. Every-process kills (above, and `-u` below) stay flagged.
  const byName = st.options.daemonAccount === undefined
  // Every process of a user (`pkill -u "$USER"`, `killall -u me`) includes the daemon.
  if (
    program !== 'pidof' &&
    args.some((a) => a === '-u' || a === '-U' || a.startsWith('--uid') || a.startsWith('--euid') || /^--user(=|$)/.test(a)) &&
    patternsOf(args).length === 0
  )
    st.signals.add('daemon_pattern')
  const full = args.some((a) => /^-[a-zA-Z]*f/.test(a) || a === '--full')
  const regex = program === 'pkill' || program === 'pgrep' || args.some((a) => a === '-r' || a === '--regexp')
  for (const pattern of byName ? patternsOf(args) : []) {
    const targets = full ? DAEMON_COMMAND_LINES : DAEMON_NAMES
    if (
      regex
        ? matchesAny(
            pattern,
            targets,
            args.some((a) => a === '-x' || a === '--exact'),
          )
        : targets.includes(pattern)
    )
      st.signals.add('daemon_pattern')
  }
}

/** `kill [-SIG] -1`: pid -1 is every process the user may signal. */
function killsEveryProcess(args: readonly string[]): boolean {
  let i = 0
  if (args[i] === '-s' || args[i] === '-n' || args[i] === '--signal') i += 2
  else if (args[i] !== undefined && args[i] !== '--' && /^-/.test(args[i]!) && args[i] !== '-1') i++
  else if (args[i] === '-1' && args.length > 1) i++
  if (args[i] === '--') i++
  return args.slice(i).includes('-1')
}

function patternsOf(args: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    if (VALUED.has(args[i]!)) i++
    else if (!args[i]!.startsWith('-')) out.push(args[i]!)
  }
  return out
}

/** Whether the pattern (an extended regular expression, as pgrep reads it) matches one of the targets; an unreadable one does. */
function matchesAny(pattern: string, targets: readonly string[], exact: boolean): boolean {
  try {
    const re = new RegExp(exact ? `^(?:${pattern})$` : pattern)
    return targets.some((t) => re.test(t) || t.split(/\s+/).some((word) => re.test(word)))
  } catch {
    return true
  }
}
