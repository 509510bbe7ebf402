/**
 * `svc hud`: one status line for Claude Code's `statusLine` setting (`{"type": "command", "command": "svc hud"}`).
 * Claude pipes a JSON object on stdin and shows the first line printed; svc's line needs nothing from it, so
 * stdin is not read (a slow or endless stdin cannot hold it up). It always exits 0 with one line — a daemon
 * that is down is shown as such, never as a stack trace — because a failing status command only hides the bar.
 */
import { Command } from 'commander'
import { daemonSnapshot } from '../hud/snapshot.ts'
import { statusLine } from '../hud/status-line.ts'
import type { CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'

export function makeHudCommand(io: CliIo): Command {
  return new Command('hud')
    .description("print one status line (mode, signer tier, allow/deny counts, pending pin changes) for Claude Code's statusLine")
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--no-color', 'no ANSI colours (also with NO_COLOR set)')
    .option('--timeout-ms <ms>', 'give up on the daemon after this long', '1000')
    .action(async (opts: { url?: string; color: boolean; timeoutMs: string }) => {
      const url = daemonUrl(io.env, opts.url)
      const timeout = /^[1-9][0-9]{0,4}$/.test(opts.timeoutMs) ? Number(opts.timeoutMs) : 1000
      const snap = await daemonSnapshot(url, timeout)
      io.out(statusLine(snap, url, opts.color && !io.env.NO_COLOR))
    })
}
