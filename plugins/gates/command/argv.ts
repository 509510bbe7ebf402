/**
 * Reading an argv the way its program does: option clusters (`-rf` holds `r` and `f`), long options
 * (`--force`, `--force=yes`), and the first positional argument after global options (`git -C dir reset`).
 */

/** Global options that take a value in the next argument, per program (so the value is not the subcommand). */
const GLOBAL_VALUE_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['git', ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path', '--super-prefix', '--list-cmds']],
  ['docker', ['-H', '--host', '-c', '--context', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey']],
  ['kubectl', ['-n', '--namespace', '--context', '--cluster', '--kubeconfig', '-s', '--server', '--user', '--token']],
  ['npm', ['--prefix', '-w', '--workspace', '--registry', '--userconfig']],
  ['gh', ['-R', '--repo', '--hostname']],
  ['cargo', ['-C', '--config', '-Z']],
])

/** The first argument from `args[from]` on that is not an option or an option's value; undefined when there is none. */
export function firstPositional(program: string, args: readonly string[], from = 0): string | undefined {
  const valueOptions = GLOBAL_VALUE_OPTIONS.get(program) ?? []
  for (let i = from; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') return args[i + 1]
    if (arg.startsWith('-') && arg.length > 1) {
      if (valueOptions.includes(arg)) i++
      continue
    }
    return arg
  }
  return undefined
}

/**
 * True when `flag` is set: a single character matches inside short-option clusters (`-rf` has `r`),
 * a longer name matches `--name` or `--name=value`. Options after `--` are operands, not flags.
 */
export function hasFlag(args: readonly string[], flag: string): boolean {
  for (const arg of args) {
    if (arg === '--') return false
    if (flag.length === 1) {
      if (/^-[A-Za-z0-9]+$/.test(arg) && arg.slice(1).includes(flag)) return true
    } else if (arg === `--${flag}` || arg.startsWith(`--${flag}=`)) return true
  }
  return false
}
