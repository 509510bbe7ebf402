/** `svc mode [monitor|firewall]`: shows or sets the daemon-level mode (setting needs operator rights). */
import { Argument, Command } from 'commander'
import { callDaemon, operatorToken } from '../http.ts'
import type { CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'

export function makeModeCommand(io: CliIo): Command {
  return new Command('mode')
    .description('show or set the daemon mode')
    .addArgument(new Argument('[mode]', 'new mode').choices(['monitor', 'firewall']))
    .option('--url <url>', 'daemon base URL')
    .option('--password-stdin', 'read the operator password from stdin')
    .option('--reason <text>', 'why (kept in the mode_changed ledger entry)')
    .action(async (mode: string | undefined, opts: { url?: string; passwordStdin?: boolean; reason?: string }) => {
      const url = daemonUrl(io.env, opts.url)
      if (!mode) {
        io.out((await callDaemon<{ mode: string }>(url, '/v1/mode')).mode)
        return
      }
      const password = opts.passwordStdin ? await io.ask('operator password: ', { hidden: true }) : undefined
      const token = await operatorToken(url, io, password, true)
      const res = await callDaemon<{ mode: string; previous: string }>(url, '/v1/mode', { method: 'PATCH', body: { mode, ...(opts.reason ? { reason: opts.reason } : {}) }, token })
      io.out(`mode: ${res.previous} -> ${res.mode}`)
    })
}
