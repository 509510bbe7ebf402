/**
 * `svc top`: the terminal dashboard (cli/top/). ink and react are imported in the action, so neither
 * `svc --help` nor `svc help top` loads them. Needs a terminal; pipes and scripts use `svc tail`.
 */
import { Command } from 'commander'
import { CliError, type CliIo } from '../io.ts'
import { withLedgerFilterOptions, type LedgerFilter } from '../ledger-filter.ts'
import { daemonUrl, svcHome, userHomeOf } from '../paths.ts'

export function makeTopCommand(io: CliIo): Command {
  return withLedgerFilterOptions(new Command('top').description('terminal dashboard: live decisions, gates, sessions, MCP pins and the ledger, with keyboard navigation'))
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc): false-positive cases go to its cases/ folder')
    .option('--interval-ms <ms>', 'how often to poll the daemon', '1000')
    .action(async (opts: LedgerFilter & { url?: string; home?: string; intervalMs: string }) => {
      if (!process.stdin.isTTY || !process.stdout.isTTY) throw new CliError('svc top needs a terminal; for pipes and scripts use `svc tail` (or `svc tail --json`)', 2)
      if (!/^[1-9][0-9]{1,5}$/.test(opts.intervalMs)) throw new CliError('--interval-ms must be a whole number of milliseconds from 10', 2)
      const { url, home, intervalMs, ...filter } = opts
      const { runTop } = await import('../top/run.ts')
      await runTop({ url: daemonUrl(io.env, url), env: io.env, userHome: userHomeOf(io.env), svcHome: svcHome(io.env, home), filter, intervalMs: Number(intervalMs) })
    })
}
