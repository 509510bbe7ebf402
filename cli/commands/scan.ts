/**
 * `svc scan`: what svc would have stopped, before it runs. Reads the agents' own transcripts (the locations each
 * harness definition names), replays every tool call through the current policy in-process over a temp copy of
 * it (no daemon, nothing written: not the ledger, not `$SVC_HOME`), and reports the denies per gate and pack,
 * each with its reason, and the entries it could not read.
 */
import { Command } from 'commander'
import { harnessRegistry } from '../../harness-contract/index.ts'
import { durationOption } from '../duration-option.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonPort, svcHome, userHomeOf } from '../paths.ts'
import { policySnapshot } from '../policy/snapshot.ts'
import { repeatable } from '../repeatable-option.ts'
import { renderScan } from '../scan/render.ts'
import { replay } from '../scan/replay.ts'
import { readTranscripts } from '../scan/transcripts.ts'
import { protectedPorts } from '../../core/index.ts'

interface Options {
  harness: string[]
  since?: string
  home?: string
  all?: boolean
  limit: string
  json?: boolean
  exitCode?: boolean
}

export function makeScanCommand(io: CliIo): Command {
  return new Command('scan')
    .description('replay the agents’ own transcripts through the current policy: what svc would have denied, and why (no daemon, writes nothing)')
    .option('--harness <id>', 'scan only this harness (repeatable)', repeatable, [])
    .option('--since <duration>', 'only transcripts changed in this window, e.g. 7d, 12h')
    .option('--home <dir>', '$SVC_HOME whose policy layers to use')
    .option('--limit <n>', 'denied calls listed (the tally counts all)', '20')
    .option('--all', 'list every denied call and every unreadable entry')
    .option('--exit-code', 'exit 1 when any call would have been denied')
    .option('--json', 'print the report as JSON')
    .action(async (opts: Options) => {
      const limit = Number(opts.limit)
      if (!Number.isInteger(limit) || limit < 0) throw new CliError(`--limit must be a whole number, got "${opts.limit}"`, 2)
      const since = durationOption('--since', opts.since)
      const userHome = io.env.SVC_USER_HOME ?? userHomeOf(io.env)
      let svcPorts: readonly number[]
      try {
        svcPorts = protectedPorts(io.env, daemonPort(io.env))
      } catch (err) {
        throw new CliError((err as Error).message, 2)
      }
      const snapshot = await policySnapshot(svcHome(io.env, opts.home), { userHome, svcPorts, keepMode: false })
      try {
        const registered = [...harnessRegistry(snapshot.engine.registry).values()]
        const known = registered.filter((h) => h.history).map((h) => h.id)
        const unknown = opts.harness.filter((id) => !known.includes(id))
        if (unknown.length > 0) throw new CliError(`no transcripts svc can read for ${unknown.join(', ')} (harnesses with transcripts: ${known.join(', ')})`, 2)
        const chosen = registered.filter((h) => h.history && (opts.harness.length === 0 || opts.harness.includes(h.id)))
        const read = readTranscripts(chosen, { home: userHome, env: io.env }, since === undefined ? 0 : Date.now() - since)
        const report = await replay(snapshot.engine, read, userHome)
        io.out(opts.json ? JSON.stringify(report, null, 2) : renderScan(report, { all: opts.all ?? false, limit }))
        if (opts.exitCode && report.denied.length > 0) throw new CliError(`${report.denied.length} call(s) would have been denied`)
      } finally {
        await snapshot.close()
      }
    })
}
