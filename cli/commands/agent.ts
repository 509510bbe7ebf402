/** `svc agent`: the host-side renewer that keeps the daemon's session alive (see cli/agent/renewer.ts). */
import { Command, Option } from 'commander'
import { parseTier, TIERS } from '../../core/types.ts'
import { desktopNotifier } from '../agent/notify.ts'
import { runRenewer } from '../agent/renewer.ts'
import { durationOption } from '../duration-option.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl, svcHome } from '../paths.ts'

interface AgentOptions {
  tier: string
  url?: string
  home?: string
  userId?: string
  group?: string[]
  lifetime?: string
  renewBefore?: string
  once?: boolean
  unlockLifetime?: string
  unlockStdin?: boolean
}

export function makeAgentCommand(io: CliIo): Command {
  return new Command('agent')
    .description('keep a session minted on the daemon: renew it after restarts, idle expiry and before its lifetime ends')
    .addOption(
      new Option('--tier <tier>', 'signer tier to renew with (software and os-keychain renew silently; totp asks you for a code)')
        .choices(TIERS.filter((t) => t !== 'unattested' && t !== 'hardware-key'))
        .makeOptionMandatory(),
    )
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--home <dir>', 'state directory holding the signer keys ($SVC_HOME, default ~/.svc)')
    .option('--user-id <id>', 'user id for the first session (renewals keep the one of the session they replace)')
    .option('--group <name...>', 'groups for the first session (renewals keep the ones of the session they replace)')
    .option('--lifetime <duration>', 'lifetime of each session (default and maximum 12h)')
    .option('--renew-before <duration>', 'renew this long before a session ends (default 10m)')
    .option('--once', 'exit after the first renewal (for scripts and tests)')
    .option('--unlock-lifetime <duration>', 'totp: how long one unlock (passphrase and code) lets the agent re-mint by itself (default 12h)')
    .option('--unlock-stdin', 'totp: read the passphrase and code lines of the first unlock from stdin (a detached or scripted start)')
    .action(async (opts: AgentOptions) => {
      const tier = parseTier(opts.tier)
      const stop = new AbortController()
      const onSignal = () => stop.abort()
      process.once('SIGTERM', onSignal)
      process.once('SIGINT', onSignal)
      const baseUrl = daemonUrl(io.env, opts.url)
      io.err(`svc agent: renewing ${tier} sessions on ${baseUrl}`)
      try {
        await runRenewer(io, {
          tier,
          baseUrl,
          home: svcHome(io.env, opts.home),
          userId: opts.userId,
          groups: opts.group,
          lifetimeMs: durationOption('--lifetime', opts.lifetime),
          renewBeforeMs: durationOption('--renew-before', opts.renewBefore),
          notify: desktopNotifier(io.env),
          signal: stop.signal,
          ...(opts.once ? { maxMints: 1 } : {}),
          unlockLifetimeMs: durationOption('--unlock-lifetime', opts.unlockLifetime),
          unlockFromStdin: opts.unlockStdin === true,
        })
      } catch (err) {
        if (err instanceof CliError) throw err
        throw new CliError(`svc agent stopped: ${(err as Error).message}`)
      } finally {
        process.off('SIGTERM', onSignal)
        process.off('SIGINT', onSignal)
      }
      io.err('svc agent: stopped')
    })
}
