/**
 * `svc log`: what the agent did, newest first — decisions filtered by verdict, rule, session, harness, tool
 * and time, with the redacted command, path or URL of each call (the daemon's one redaction). `--follow`
 * streams new entries, `--json` prints one JSON object per line.
 */
import { Command } from 'commander'
import { CliError, type CliIo } from '../io.ts'
import { withLedgerFilterOptions, type LedgerFilter } from '../ledger-filter.ts'
import { recordJson, recordLine } from '../ledger-record-view.ts'
import { followLedger, newestEntries, type LedgerRecord } from '../ledger-stream.ts'
import { daemonUrl, userHomeOf } from '../paths.ts'

interface LogOpts extends LedgerFilter {
  limit: string
  follow?: boolean
  json?: boolean
  url?: string
}

export function makeLogCommand(io: CliIo): Command {
  return withLedgerFilterOptions(new Command('log').description('what the agent did: decisions newest first, filtered, with the redacted command, path or URL'))
    .option('--limit <n>', 'at most this many entries', '50')
    .option('--follow', 'keep printing new entries as they are recorded')
    .option('--json', 'one JSON object per line')
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .action(async (opts: LogOpts) => {
      if (!/^[1-9][0-9]{0,3}$/.test(opts.limit)) throw new CliError('--limit must be a whole number from 1 to 9999', 2)
      const url = daemonUrl(io.env, opts.url)
      const home = userHomeOf(io.env)
      const print = (records: readonly LedgerRecord[]) => {
        for (const r of records) io.out(opts.json ? recordJson(r, home) : recordLine(r, home))
      }
      const { records, treeSize } = await newestEntries(url, opts, Number(opts.limit))
      print(records)
      if (!opts.follow) return
      for await (const batch of followLedger(url, opts, treeSize - 1)) print(batch)
    })
}
