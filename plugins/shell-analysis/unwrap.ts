/**
 * Wrappers (`sudo`, `env`, `timeout`, `xargs`, ...): their own options are stripped and the wrapped command
 * is dispatched, with what the wrapper changes for it (`env -C DIR`/`sudo -D DIR`: the working directory;
 * `env VAR=x`: the environment; `xargs`: arguments read from input, unknown when the input is).
 */
import { assignedVariable } from './command-variables.ts'
import { noteConfigVariable } from './self-protection.ts'
import { dispatch } from './dispatch.ts'
import { PLAIN, type FieldInfo, type Invocation } from './invocation.ts'
import { pathOutput } from './path-output.ts'
import { lexicalPath } from './paths.ts'
import { WRAPPERS } from './programs.ts'
import { recordCommand } from './record.ts'
import type { AnalysisState } from './state.ts'

/** Strips a wrapper's own options and continues with the wrapped command. */
export function unwrap(st: AnalysisState, inv: Invocation, program: string): string | undefined {
  const spec = WRAPPERS.get(program) ?? {}
  const argv = [...inv.argv]
  const info = [...inv.info]
  let i = 1
  let skipPositionals = spec.positionals ?? 0
  let chdir: string | null | undefined
  while (i < argv.length) {
    const arg = argv[i]!
    if (arg === '--') {
      i++
      break
    }
    if (
      (program === 'env' && (arg === '-C' || arg === '--chdir' || arg.startsWith('--chdir='))) ||
      (program === 'sudo' && (arg === '-D' || arg === '--chdir' || arg.startsWith('--chdir=')))
    ) {
      // `env -C DIR`, `sudo -D DIR`: the wrapped command runs in DIR (unknown when DIR is).
      const inline = arg.startsWith('--chdir=')
      const dir = inline ? arg.slice(8) : argv[i + 1]
      const dynamic = (inline ? info[i] : info[i + 1])?.dynamic ?? false
      chdir = dir === undefined || dynamic ? null : (lexicalPath(dir, { home: st.options.home, cwd: inv.scope.cwd }) ?? null)
      i += inline ? 1 : 2
      continue
    }
    // `env -i`/`env -` clears the environment, `env -u NAME` drops one variable: a harness may lose its config.
    if (program === 'env' && (arg === '-i' || arg === '-' || arg === '--ignore-environment')) noteConfigVariable(inv.scope, undefined)
    else if (program === 'env' && /^(-u|--unset)(=|$)|^-u./.test(arg)) noteConfigVariable(inv.scope, /^(-u|--unset)$/.test(arg) ? argv[i + 1] : arg.replace(/^(-u|--unset=)/, ''))
    if (program === 'env' && /^[A-Za-z_]\w*=/.test(arg)) {
      const eq = arg.indexOf('=')
      const dynamic = info[i]?.dynamic === true
      assignedVariable(st, inv.scope, arg.slice(0, eq), { text: dynamic ? undefined : arg.slice(eq + 1), programs: info[i]?.programs ?? [] })
      inv.scope.vars.set(arg.slice(0, eq), arg.slice(eq + 1))
      i++
      continue
    }
    if (arg.startsWith('-') && arg.length > 1) {
      if (program === 'command' && /^-[pvV]*[vV]/.test(arg)) {
        recordCommand(st, inv.scope, program, inv.argv, inv.via, inv.redirects)
        return inv.info.some((f) => f.dynamic) ? undefined : pathOutput(program, inv.argv, { home: st.options.home, cwd: inv.scope.cwd })
      }
      if (program === 'env' && (arg === '-S' || arg === '--split-string' || arg.startsWith('-S') || arg.startsWith('--split-string='))) {
        const value = arg === '-S' || arg === '--split-string' ? argv[i + 1] : arg.replace(/^(-S|--split-string=)/, '')
        const consumed = arg === '-S' || arg === '--split-string' ? 2 : 1
        const words = (value ?? '').split(/\s+/).filter((w) => w !== '')
        const srcInfo = info[i + consumed - 1] ?? PLAIN
        argv.splice(i, consumed, ...words)
        info.splice(i, consumed, ...words.map(() => srcInfo))
        break
      }
      const long = arg.startsWith('--')
      const takesValue = long ? !arg.includes('=') && (spec.valueLong ?? []).includes(arg) : (spec.valueShort ?? '').includes(arg.slice(-1)) && !/^-[a-zA-Z]\d+$/.test(arg)
      i += takesValue ? 2 : 1
      continue
    }
    if (skipPositionals > 0) {
      skipPositionals--
      i++
      continue
    }
    break
  }
  let inner = argv.slice(i)
  let innerInfo = info.slice(i)
  if (program === 'xargs') {
    if (inner.length === 0) inner = ['echo']
    const replace = xargsReplaceString(argv.slice(1, i))
    if (replace !== undefined) {
      // `xargs -I R cmd ... R ...`: R is replaced by each input line.
      const line = inv.stdin?.text?.split('\n').find((l) => l.trim() !== '')
      if (line !== undefined) inner = inner.map((a) => a.split(replace).join(line.trim()))
      // Unknown input: the replaced arguments are unknown.
      else innerInfo = inner.map((a, k) => (a.includes(replace) ? UNKNOWN_INPUT : (innerInfo[k] ?? PLAIN)))
    } else if (inv.stdin?.text === undefined) {
      // Arguments read from input svc cannot compute: one unknown operand stands for them.
      inner = [...inner, '$XARGS_INPUT']
      innerInfo = [...innerInfo, UNKNOWN_INPUT]
    } else {
      const words = inv.stdin.text.split(/[\s\0]+/).filter((w) => w !== '')
      inner = [...inner, ...words.slice(0, 64)]
      innerInfo = [...innerInfo, ...words.slice(0, 64).map(() => PLAIN)]
    }
  }
  if (inner.length === 0) {
    recordCommand(st, inv.scope, program, inv.argv, inv.via, inv.redirects)
    return undefined
  }
  const scope = chdir === undefined ? inv.scope : { ...inv.scope, cwd: chdir ?? undefined }
  // `find DIR | xargs cmd`: cmd's arguments are names under DIR, so cmd reads there.
  const inputPaths = program === 'xargs' && inv.stdin?.text === undefined && inv.stdin?.listed?.length ? { inputPaths: [...(inv.inputPaths ?? []), ...inv.stdin.listed] } : {}
  return dispatch(st, { ...inv, scope, argv: inner, info: innerInfo, via: [...inv.via, program], stdin: program === 'xargs' ? undefined : inv.stdin, ...inputPaths })
}

const UNKNOWN_INPUT: FieldInfo = { dynamic: true, programs: [], procsub: false }

/** The replace-string of `xargs -I R`, `-iR`, `--replace[=R]` (`{}` by default for -i/--replace). */
function xargsReplaceString(options: readonly string[]): string | undefined {
  for (let k = 0; k < options.length; k++) {
    const o = options[k]!
    if (o === '-I') return options[k + 1]
    if (o.startsWith('-I')) return o.slice(2)
    if (o === '-i' || o === '--replace') return '{}'
    if (o.startsWith('-i')) return o.slice(2)
    if (o.startsWith('--replace=')) return o.slice('--replace='.length)
  }
  return undefined
}
