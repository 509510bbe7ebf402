/**
 * Static output of the commands that print paths and numbers agents use to build targets: `pwd`,
 * `dirname`, `basename`, `realpath`/`readlink -f` (lexical), `which`/`command -v`/`type -P` (the name: only
 * the program name matters downstream), and `expr` arithmetic. Computing them turns "unknown" into a value
 * the gates can check (`rm -rf "$(dirname "$PWD")"`, `"$(command -v svc)" mode monitor`, `$(expr 7000 + 878)`).
 */
import { posix } from 'node:path'
import { evaluateArithmetic } from './arithmetic.ts'
import { lexicalPath } from './paths.ts'

/** Output of `argv` (with a trailing newline), or undefined when it is not one of these or not computable. */
export function pathOutput(program: string, argv: readonly string[], ctx: { home: string; cwd?: string }): string | undefined {
  const operands = argv.slice(1).filter((a) => !a.startsWith('-'))
  const line = (values: readonly (string | undefined)[]): string | undefined => (values.length === 0 || values.some((v) => v === undefined) ? undefined : `${values.join('\n')}\n`)
  switch (program) {
    case 'pwd':
      return ctx.cwd === undefined ? undefined : `${ctx.cwd}\n`
    case 'dirname':
      return line(operands.map((o) => posix.dirname(o)))
    case 'basename':
      return operands[0] === undefined ? undefined : `${posix.basename(operands[0], operands[1])}\n`
    case 'realpath':
    case 'grealpath':
      return line(operands.map((o) => lexicalPath(o, ctx)))
    case 'readlink':
      return argv.some((a) => /^-[a-zA-Z]*[fem]/.test(a)) ? line(operands.map((o) => lexicalPath(o, ctx))) : undefined
    case 'which':
      return line(operands)
    case 'command':
    case 'type':
      return argv.some((a) => /^-[a-zA-Z]*[vVP]/.test(a)) ? line(operands) : undefined
    case 'expr': {
      const value = evaluateArithmetic(argv.slice(1).join(' '), () => undefined)
      return value === undefined ? undefined : `${value}\n`
    }
    default:
      return undefined
  }
}
