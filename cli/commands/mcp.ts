/**
 * `svc mcp list` shows the MCP servers the daemon has seen with their pin state; `svc mcp accept <server>`
 * (also spelled `svc mcp pin accept <server>`) pins the queued or changed fingerprint (operator rights).
 */
import { Command } from 'commander'
import { callDaemon, operatorToken } from '../http.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'

interface PinView {
  server: string
  state: string
  pinned_fingerprint?: string
  pending_fingerprint?: string
  pending_source?: string
  latest_fingerprint?: string
  latest_source?: string
  identity: Record<string, unknown>
}

function acceptCommand(io: CliIo): Command {
  return new Command('accept')
    .description('pin the queued (or changed) fingerprint of an MCP server (operator)')
    .argument('<server>', 'server name')
    .option('--fingerprint <sha256>', 'the fingerprint you reviewed (as shown by `svc mcp list`); default: the one waiting now, shown before it is sent')
    .option('--url <url>', 'daemon base URL')
    .option('--password-stdin', 'read the operator password from stdin')
    .action(async (server: string, opts: { fingerprint?: string; url?: string; passwordStdin?: boolean }) => {
      const url = daemonUrl(io.env, opts.url)
      const password = opts.passwordStdin ? await io.ask('operator password: ', { hidden: true }) : undefined
      const token = await operatorToken(url, io, password)
      let fingerprint = opts.fingerprint
      if (!fingerprint) {
        // The daemon pins only a fingerprint named exactly: show what is waiting, then name that one.
        const { servers } = await callDaemon<{ servers: PinView[] }>(url, '/v1/mcp/pins')
        const waiting = servers.find((s) => s.server === server)
        if (!waiting?.pending_fingerprint) throw new CliError(`MCP server "${server}" has nothing waiting to be accepted (see \`svc mcp list\`)`)
        fingerprint = waiting.pending_fingerprint
        io.out(`accepting ${server} at ${fingerprint} (from ${waiting.pending_source}); identity: ${JSON.stringify(waiting.identity)}`)
      }
      const res = await callDaemon<PinView>(url, '/v1/mcp/pin/accept', { body: { server, fingerprint }, token })
      io.out(`pinned ${res.server} at ${res.pinned_fingerprint}`)
    })
}

export function makeMcpCommand(io: CliIo): Command {
  const mcp = new Command('mcp').description('MCP server pinning')
  mcp.addCommand(
    new Command('list')
      .description('MCP servers seen by the daemon, with pin state and fingerprints')
      .option('--url <url>', 'daemon base URL')
      .option('--json', 'print JSON')
      .action(async (opts: { url?: string; json?: boolean }) => {
        const { servers } = await callDaemon<{ servers: PinView[] }>(daemonUrl(io.env, opts.url), '/v1/mcp/pins')
        if (opts.json) return io.out(JSON.stringify(servers, null, 2))
        if (servers.length === 0) return io.out('no MCP servers seen yet')
        for (const s of servers) {
          const waiting = s.pending_fingerprint ? (s.state === 'pinned' ? `CHANGED -> ${s.pending_fingerprint} (from ${s.pending_source})` : `queued ${s.pending_fingerprint} (from ${s.pending_source})`) : ''
          const later = s.latest_fingerprint ? `\talso seen ${s.latest_fingerprint} (from ${s.latest_source})` : ''
          io.out(`${s.server}\t${s.state}\t${s.pinned_fingerprint ?? '-'}\t${waiting}${later}\t${JSON.stringify(s.identity)}`)
        }
      }),
  )
  mcp.addCommand(acceptCommand(io))
  mcp.addCommand(new Command('pin').description('pin commands (`svc mcp pin accept <server>`)').addCommand(acceptCommand(io)))
  return mcp
}
