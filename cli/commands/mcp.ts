/**
 * `svc mcp list` shows the MCP servers the harness configs define (wrapped or not) and those seen at run time,
 * with pin state tool by tool; `svc mcp accept <server>` (also spelled `svc mcp pin accept <server>`) pins the
 * queued or changed fingerprint (operator rights); `svc mcp wrap|unwrap [server]` (cli/mcp-wrap/); `svc mcp log
 * <server>` shows what the proxy relayed without a verdict (initialize, lists, notifications…).
 */
import { Command } from 'commander'
import { callDaemon, operatorToken } from '../http.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'
import { wrapCommands } from '../mcp-wrap/command.ts'

interface PinView {
  server: string
  state: string
  pinned_fingerprint?: string
  pending_fingerprint?: string
  pending_source?: string
  latest_fingerprint?: string
  latest_source?: string
  identity: Record<string, unknown>
  served_fingerprint?: string
}

interface ServerView {
  name: string
  harness?: string
  file?: string
  transport: string
  wrapped: boolean
  governed: boolean
  ungoverned_reason?: string
  pin: { state: string; pinned_fingerprint?: string; pending_fingerprint?: string; served_fingerprint?: string; stale?: boolean }
  tools?: { name: string; state: string; why: string; changed?: string[] }[]
}

interface TrafficView {
  server: string
  received: number
  dropped: number
  by_method: Record<string, number>
  entries: { at: string; from: string; kind: string; method?: string; id?: string; bytes: number }[]
}

function pinDecisionCommand(io: CliIo, verb: 'accept' | 'reject'): Command {
  const description =
    verb === 'accept'
      ? 'pin the queued (or changed) fingerprint of an MCP server (operator)'
      : 'reject the queued (or changed) fingerprint of an MCP server: its calls stay denied, saying so, until accepted (operator)'
  return new Command(verb)
    .description(description)
    .argument('<server>', 'server name')
    .option('--fingerprint <sha256>', 'the fingerprint you reviewed (as shown by `svc mcp list`); default: the one waiting now, shown before it is sent')
    .option('--url <url>', 'daemon base URL')
    .option('--password-stdin', 'read the operator password from stdin')
    .action(async (server: string, opts: { fingerprint?: string; url?: string; passwordStdin?: boolean }) => {
      const url = daemonUrl(io.env, opts.url)
      const password = opts.passwordStdin ? await io.ask('operator password: ', { hidden: true }) : undefined
      const token = await operatorToken(url, io, password, true)
      let fingerprint = opts.fingerprint
      if (!fingerprint) {
        // The daemon pins only a fingerprint named exactly: show what is waiting, then name that one.
        const { servers } = await callDaemon<{ servers: PinView[] }>(url, '/v1/mcp/pins')
        const waiting = servers.find((s) => s.server === server)
        if (!waiting?.pending_fingerprint) throw new CliError(`MCP server "${server}" has nothing waiting to be ${verb}ed (see \`svc mcp list\`)`)
        // What the proxy saw the server serve (its whole tool list) is what an operator means to pin, when it waits.
        const served = waiting.served_fingerprint
        fingerprint = served && (served === waiting.pending_fingerprint || served === waiting.latest_fingerprint) ? served : waiting.pending_fingerprint
        io.out(`${verb === 'accept' ? 'accepting' : 'rejecting'} ${server} at ${fingerprint} (from ${waiting.pending_source}); identity: ${JSON.stringify(waiting.identity)}`)
      }
      const res = await callDaemon<PinView & { rejected_fingerprint?: string }>(url, `/v1/mcp/pin/${verb}`, { body: { server, fingerprint }, token })
      if (verb === 'accept') io.out(`pinned ${res.server} at ${res.pinned_fingerprint}`)
      else io.out(`rejected ${res.server} at ${res.rejected_fingerprint}: its calls are denied until \`svc mcp pin accept ${res.server}\``)
    })
}

export function makeMcpCommand(io: CliIo): Command {
  const mcp = new Command('mcp').description('MCP server pinning')
  mcp.addCommand(
    new Command('list')
      .description('MCP servers in the harness configs (wrapped or not) and seen at run time, with pin state tool by tool')
      .option('--url <url>', 'daemon base URL')
      .option('--json', 'print JSON')
      .action(async (opts: { url?: string; json?: boolean }) => {
        const { servers } = await callDaemon<{ servers: ServerView[] }>(daemonUrl(io.env, opts.url), `/v1/mcp/servers?cwd=${encodeURIComponent(process.cwd())}`)
        if (opts.json) return io.out(JSON.stringify(servers, null, 2))
        if (servers.length === 0) return io.out('no MCP servers configured or seen')
        for (const s of servers) {
          const where = s.harness ? `${s.harness} ${s.file}` : 'seen at run time'
          const governed = s.governed ? (s.wrapped ? 'wrapped' : 'proxied') : `UNGOVERNED (${s.ungoverned_reason})`
          const pin = `${s.pin.state}${s.pin.stale ? ' (tool list stale)' : ''}${s.pin.pending_fingerprint ? ` waiting ${s.pin.pending_fingerprint}` : ''}`
          io.out(`${s.name}\t${s.transport}\t${governed}\t${pin}\t${where}`)
          for (const t of s.tools ?? []) io.out(`  ${t.name}\t${t.state}${t.state === 'pinned' ? '' : `\t${t.why}`}`)
        }
      }),
  )
  mcp.addCommand(
    new Command('log')
      .description('messages svc mcp-proxy relayed for a server without a verdict (method, id, direction, size), oldest first')
      .argument('<server>', 'server name')
      .option('--limit <n>', 'entries to show (at most 500)', '50')
      .option('--url <url>', 'daemon base URL')
      .option('--json', 'print JSON')
      .action(async (server: string, opts: { limit: string; url?: string; json?: boolean }) => {
        const limit = Number(opts.limit)
        if (!Number.isInteger(limit) || limit < 0 || limit > 500) throw new CliError('--limit must be a whole number from 0 to 500', 2)
        const { servers } = await callDaemon<{ servers: TrafficView[] }>(daemonUrl(io.env, opts.url), `/v1/mcp/traffic?server=${encodeURIComponent(server)}&limit=${limit}`)
        const t = servers[0]!
        if (opts.json) return io.out(JSON.stringify(t, null, 2))
        io.out(`${t.server}: ${t.received} message(s) recorded, ${t.dropped} dropped${t.dropped ? ' (the relay could not reach the daemon)' : ''}`)
        for (const [method, n] of Object.entries(t.by_method)) io.out(`  ${method}\t${n}`)
        for (const e of t.entries) io.out(`${e.at}\t${e.from === 'client' ? '→' : '←'} ${e.kind}\t${e.method ?? ''}\t${e.id ?? ''}\t${e.bytes} B`)
      }),
  )
  for (const command of wrapCommands(io, async (question) => /^y(es)?$/i.test((await io.ask(`${question} [y/N] `))?.trim() ?? ''))) mcp.addCommand(command)
  mcp.addCommand(pinDecisionCommand(io, 'accept'))
  mcp.addCommand(
    new Command('pin').description('pin commands (`svc mcp pin accept|reject <server>`)').addCommand(pinDecisionCommand(io, 'accept')).addCommand(pinDecisionCommand(io, 'reject')),
  )
  return mcp
}
