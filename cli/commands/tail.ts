/**
 * `svc tail`: new decisions as they are recorded, one line each (or `--json`, one object per line), for pipes
 * and scripts; no TUI, no colour unless stdout is a terminal. Resumes after a seq (`--after-seq`) so a consumer
 * that restarts misses nothing and repeats nothing; stops cleanly on SIGINT/SIGTERM or a closed pipe.
 */
import { Command } from 'commander'
import { CliError, type CliIo } from '../io.ts'
import { withLedgerFilterOptions, type LedgerFilter } from '../ledger-filter.ts'
import { recordJson, recordLine } from '../ledger-record-view.ts'
import { followLedger, newestEntries } from '../ledger-stream.ts'
import { daemonUrl, userHomeOf } from '../paths.ts'

interface TailOpts extends LedgerFilter {
  afterSeq?: string
  json?: boolean
  url?: string
}

/** Colour only on a terminal, and never with NO_COLOR. */
function stdoutColour(env: NodeJS.ProcessEnv): boolean {
  return process.stdout.isTTY === true && !env.NO_COLOR
}

/** Aborts on SIGINT/SIGTERM and when stdout's reader goes away (`svc tail | head`); `dispose` removes the handlers. */
function stopSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController()
  const stop = () => controller.abort()
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') stop()
  }
  process.once('SIGINT', stop).once('SIGTERM', stop)
  process.stdout.on('error', onError)
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', stop).off('SIGTERM', stop)
      process.stdout.off('error', onError)
    },
  }
}

export function makeTailCommand(io: CliIo): Command {
  return withLedgerFilterOptions(new Command('tail').description('follow new decisions, one plain line (or JSON object) each, for pipes and scripts'))
    .option('--after-seq <seq>', 'resume: print matching entries recorded after this seq (the last one you saw), then follow')
    .option('--json', 'one JSON object per line')
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .action(async (opts: TailOpts) => {
      if (opts.afterSeq !== undefined && !/^(-1|0|[1-9][0-9]{0,14})$/.test(opts.afterSeq))
        throw new CliError(`--after-seq must be a ledger seq (or -1 for the start), not "${opts.afterSeq}"`, 2)
      const url = daemonUrl(io.env, opts.url)
      const home = userHomeOf(io.env)
      const colour = !opts.json && stdoutColour(io.env)
      // Without --after-seq: from now on (the tree size read now), like `tail -f` on a fresh file.
      const after = opts.afterSeq !== undefined ? Number(opts.afterSeq) : (await newestEntries(url, opts, 1)).treeSize - 1
      const stop = stopSignal()
      try {
        for await (const batch of followLedger(url, opts, after, { signal: stop.signal })) {
          for (const r of batch) io.out(opts.json ? recordJson(r, home) : recordLine(r, home, colour))
        }
      } finally {
        stop.dispose()
      }
    })
}
