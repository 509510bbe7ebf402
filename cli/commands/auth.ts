/** `svc auth set-password`: stores the operator password as a scrypt hash in $SVC_HOME (read from stdin). */
import { Command } from 'commander'
import { setPassword } from '../../core/auth/password.ts'
import { CliError, type CliIo } from '../io.ts'
import { svcHome } from '../paths.ts'

export function makeAuthCommand(io: CliIo): Command {
  const auth = new Command('auth').description('operator authentication')
  auth.addCommand(
    new Command('set-password')
      .description('set the operator password (read from stdin, first line; or SVC_ADMIN_PASSWORD)')
      .option('--home <dir>', 'state directory ($SVC_HOME)')
      .action(async (opts: { home?: string }) => {
        const fromStdin = (await io.readStdin()).split(/\r?\n/)[0] ?? ''
        const password = fromStdin || io.env.SVC_ADMIN_PASSWORD || ''
        if (!password) throw new CliError('no password given: pipe it on stdin (e.g. `printf %s "$PW" | svc auth set-password`) or set SVC_ADMIN_PASSWORD')
        try {
          setPassword(svcHome(io.env, opts.home), password)
        } catch (err) {
          throw new CliError((err as Error).message)
        }
        io.out('operator password set (scrypt hash in $SVC_HOME/auth.json); running daemons pick it up at the next login')
      }),
  )
  return auth
}
