/** `svc auth set-password`: stores the operator password as a scrypt hash in $SVC_HOME (read from stdin). */
import { chownSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Command } from 'commander'
import { setPassword } from '../../daemon/index.ts'
import { askNewSecret, CliError, type CliIo } from '../io.ts'
import { svcHome } from '../paths.ts'

export function makeAuthCommand(io: CliIo): Command {
  const auth = new Command('auth').description('operator authentication')
  auth.addCommand(
    new Command('set-password')
      .description('set the operator password (typed at a hidden prompt, or the first line of stdin, or SVC_ADMIN_PASSWORD)')
      .option('--home <dir>', 'state directory ($SVC_HOME)')
      .action(async (opts: { home?: string }) => {
        // On a terminal SVC_ADMIN_PASSWORD wins over a prompt; piped, stdin wins over the environment.
        const env = io.env.SVC_ADMIN_PASSWORD || undefined
        const password = (io.interactive && env) || (await askNewSecret(io, 'operator password')) || env
        if (!password) throw new CliError('no password given: type it at the prompt, pipe it on stdin (e.g. `printf %s "$PW" | svc auth set-password`) or set SVC_ADMIN_PASSWORD')
        const home = svcHome(io.env, opts.home)
        try {
          setPassword(home, password)
          // Root setting the password of a daemon that runs as its own user (`--system`): the file is that user's.
          if (process.getuid?.() === 0) {
            const owner = statSync(home)
            if (owner.uid !== 0) chownSync(join(home, 'auth.json'), owner.uid, owner.gid)
          }
        } catch (err) {
          throw new CliError((err as Error).message)
        }
        io.out('operator password set (scrypt hash in $SVC_HOME/auth.json); restart a running daemon to use it (a daemon reads the hash once, at start)')
      }),
  )
  return auth
}
