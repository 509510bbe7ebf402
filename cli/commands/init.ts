/** `svc init` and `svc init --undo`: protected in one command, and all of it removed in one (cli/init/). */
import { Command, InvalidArgumentError, Option } from 'commander'
import type { CliIo } from '../io.ts'
import { DEFAULT_PORT } from '../paths.ts'
import { KEYSTORES } from '../signer/keystores.ts'

function parsePort(value: string): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new InvalidArgumentError('must be a port number from 1 to 65535')
  return port
}

export function makeInitCommand(io: CliIo): Command {
  return new Command('init')
    .description('protect this user in one command: signer, password, daemon and renewer, hooks after the diff, a live deny (`--undo` removes it all)')
    .addOption(
      new Option('--tier <tier>', 'signer tier (default: os-keychain where an OS keystore works, else totp; software only when named: dev/CI)').choices([
        'os-keychain',
        'totp',
        'software',
      ]),
    )
    .addOption(new Option('--keystore <name>', 'os-keychain: where the key is kept (default: the best this host has)').choices(KEYSTORES))
    .option('--password-stdin', 'read the operator password from the first line of stdin (then the TOTP passphrase and code lines, then the y/N answer unless --yes)')
    .option('--yes', 'install the hooks without asking after the diff')
    .addOption(new Option('--port <port>', 'daemon API port').default(DEFAULT_PORT).argParser(parsePort))
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .option('--harness <id...>', 'harness ids (default: every one found for this user)')
    .option('--unlock-lifetime <duration>', 'totp: how long the renewer re-mints after one unlock (default 12h)')
    .option('--undo', 'remove everything svc init did (hooks byte-exact, service files or processes, the signer and password it set)')
    .action(async (opts: { undo?: boolean; home?: string } & Parameters<typeof import('../init/run.ts').runInit>[1]) => {
      if (opts.undo) return (await import('../init/undo.ts')).undoInit(io, opts)
      return (await import('../init/run.ts')).runInit(io, opts)
    })
}
