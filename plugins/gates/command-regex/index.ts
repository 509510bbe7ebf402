/**
 * `command_regex`: a linear-time (RE2) regex over each analysed simple command of a shell call, so
 * quoting, wrappers and `bash -c` nesting cannot hide the command, and over the raw text.
 */
import { compileSafeRegex, defineGateKind, type EvalRequest } from '../../../core/index.ts'

export default defineGateKind<string>({
  kind: 'command_regex',
  description: 'RE2 regex matched against every analysed simple command (effective argv joined by spaces) and the raw command text.',
  schema: { type: 'string', minLength: 1, maxLength: 4096 },
  compile(value) {
    const regex = compileSafeRegex(value)
    return function commandMatches(request: EvalRequest) {
      const shell = request.shell
      if (!shell) return undefined
      for (const command of shell.commands) if (regex.test(command.text)) return `command \`${command.text}\``
      return regex.test(shell.raw) ? `command text \`${shell.raw}\`` : undefined
    }
  },
  index: () => ({ facets: ['shell'] }),
})
