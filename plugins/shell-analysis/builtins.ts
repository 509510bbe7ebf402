/**
 * Builtins that change the shell the rest of the command runs in, and run nothing themselves: `cd`/`pushd`
 * (the working directory, `$OLDPWD`), `alias` and `hash -p` (what a name runs), `set --` (the positional
 * parameters), and the builtins that assign variables (`read`, `mapfile`/`readarray`, `printf -v`), whose
 * values are judged as any assignment is (command-variables.ts).
 */
import { assignedVariable } from './command-variables.ts'
import type { Invocation } from './invocation.ts'
import { readFields } from './nested-commands.ts'
import { lexicalPath } from './paths.ts'
import type { AnalysisState } from './state.ts'
import { staticOutput } from './static-output.ts'

/** Applies `program` to the scope when it is one of these builtins; false when it is not (the caller records it either way). */
export function changesShellState(st: AnalysisState, inv: Invocation, program: string): boolean {
  if (program === 'hash') {
    // `hash -p /bin/rm ls`: from now on `ls` runs /bin/rm, as an alias would make it.
    const at = inv.argv.indexOf('-p')
    const [path, ...names] = at === -1 ? [] : inv.argv.slice(at + 1)
    if (path !== undefined) for (const name of names) inv.scope.aliases.set(name, `'${path.replace(/'/g, `'\\''`)}'`)
    return true
  }
  if (program === 'alias') {
    for (const arg of inv.argv.slice(1)) {
      const m = /^([^=\s]+)=(.*)$/s.exec(arg)
      if (m) inv.scope.aliases.set(m[1]!, m[2]!)
    }
    return true
  }
  if (program === 'cd' || program === 'pushd') {
    const operand = inv.argv.slice(1).find((a) => !a.startsWith('-') || a === '-')
    const previous = inv.scope.cwd
    const oldpwd = inv.scope.vars.get('OLDPWD')
    // `cd -` goes back to $OLDPWD; a relative target under a set CDPATH may resolve anywhere in it.
    const target = operand === '-' ? oldpwd : (operand ?? '~')
    const viaCdpath = inv.scope.vars.has('CDPATH') && target !== undefined && !/^\.{0,2}(\/|$)/.test(target)
    inv.scope.cwd = target === undefined || viaCdpath || inv.info.slice(1).some((i) => i.dynamic) ? undefined : lexicalPath(target, { home: st.options.home, cwd: inv.scope.cwd })
    if (previous !== undefined) inv.scope.vars.set('OLDPWD', previous)
    else inv.scope.vars.delete('OLDPWD')
    return true
  }
  if (program === 'set' && inv.argv.length > 1 && (inv.argv[1] === '--' || !/^[-+]/.test(inv.argv[1]!))) {
    // `set -- a b c` replaces the positional parameters ("$@" then runs them as a command).
    const positional = inv.argv.slice(inv.argv[1] === '--' ? 2 : 1)
    for (const key of [...inv.scope.vars.keys()]) if (/^\d+$/.test(key)) inv.scope.vars.delete(key)
    positional.slice(0, 9).forEach((a, i) => {
      inv.scope.vars.set(String(i + 1), a)
    })
    inv.scope.vars.set('@', positional.join(' '))
    inv.scope.vars.set('*', positional.join(' '))
    inv.scope.vars.set('#', String(positional.length))
    return true
  }
  if (program === 'read' || program === 'mapfile' || program === 'readarray') {
    readInto(st, inv, program)
    return true
  }
  if (program === 'printf' && inv.argv[1] === '-v' && inv.argv[2] !== undefined && inv.argv[3] !== undefined) {
    const value = staticOutput('printf', ['printf', ...inv.argv.slice(3)], undefined)
    const known = value !== undefined && !inv.info.slice(3).some((i) => i.dynamic)
    assignedVariable(st, inv.scope, inv.argv[2], { text: known ? value : undefined, programs: inv.info.slice(3).flatMap((i) => i.programs) })
    if (known) inv.scope.vars.set(inv.argv[2], value)
    else inv.scope.vars.delete(inv.argv[2])
    return true
  }
  return false
}

/**
 * `read NAME...` from input svc computed sets the names; from anything else (a file, a pipe of unknown
 * text) they hold what only run time knows, as `mapfile`/`readarray` arrays always do here.
 */
function readInto(st: AnalysisState, inv: Invocation, program: string): void {
  const text = program === 'read' ? inv.stdin?.text : undefined
  const fields = readFields(inv.argv.slice(1), text ?? '')
  const names =
    program === 'read'
      ? [...fields.keys()]
      : [
          inv.argv
            .slice(1)
            .filter((a) => /^[A-Za-z_]\w*$/.test(a))
            .at(-1) ?? 'MAPFILE',
        ]
  for (const name of names) {
    assignedVariable(st, inv.scope, name, { text: text === undefined ? undefined : fields.get(name), programs: inv.stdin?.programs ?? [] })
    for (const key of [...inv.scope.vars.keys()]) if (key === name || key.startsWith(`${name}[`)) inv.scope.vars.delete(key)
    if (text !== undefined) inv.scope.vars.set(name, fields.get(name) ?? '')
  }
}
