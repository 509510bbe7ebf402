/** `svc session create`: mints a session on the daemon and prints the signer's banner. */
import { Command, Option } from 'commander'
import { callDaemon } from '../http.ts'
import { banner, CliError, type CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'

export const TIERS = ['unattested', 'software', 'totp', 'os-keychain', 'hardware-key'] as const

/** The `--tier/--code/--passphrase` options shared by every minting command. */
export function addTierOptions(cmd: Command, defaultTier?: string): Command {
  const tier = new Option('--tier <tier>', 'signer tier').choices(TIERS)
  return cmd
    .addOption(defaultTier ? tier.default(defaultTier) : tier.makeOptionMandatory())
    .option('--code <TOTP_CODE>', '6-digit TOTP code (tier totp)')
    .option('--passphrase <PASSPHRASE>', 'passphrase of the sealed TOTP key (tier totp)')
}

export function makeSessionCommand(io: CliIo): Command {
  const session = new Command('session').description('mint and rotate ledger sessions')
  const create = new Command('create')
    .description('mint a short-lived session on the daemon')
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--user-id <id>', 'user id recorded on the session (selects group policy)')
    .option('--group <name...>', 'groups recorded on the session (selects group policy)')
  addTierOptions(create).action(async (opts: { tier: string; url?: string; userId?: string; group?: string[] }) => {
    if (opts.tier !== 'unattested') throw new CliError(`tier ${opts.tier} is not available in this build yet; use --tier unattested`)
    io.err(banner('unattested'))
    const res = await callDaemon<{ session_id: string; expires_at: string; ledger_seq: number }>(daemonUrl(io.env, opts.url), '/v1/sessions/create', {
      body: { signer: 'unattested', ...(opts.userId ? { user_id: opts.userId } : {}), ...(opts.group ? { groups: opts.group } : {}) },
    })
    io.out(JSON.stringify(res, null, 2))
  })
  return session.addCommand(create)
}
