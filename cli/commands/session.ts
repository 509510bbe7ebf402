/** `svc session create|rotate`: mint a session with the chosen signer tier and print it. */
import { Command, Option } from 'commander'
import { TIERS } from '../../core/types.ts'
import { durationOption } from '../duration-option.ts'
import type { CliIo } from '../io.ts'
import { daemonUrl, svcHome } from '../paths.ts'
import { callDaemon } from '../http.ts'
import { mintOnDaemon } from '../signer/mint-flow.ts'

export { TIERS }

/** The `--tier/--code/--passphrase` options shared by every minting command. */
export function addTierOptions(cmd: Command, defaultTier?: string): Command {
  const tier = new Option('--tier <tier>', 'signer tier').choices(TIERS)
  return cmd
    .addOption(defaultTier ? tier.default(defaultTier) : tier.makeOptionMandatory())
    .option('--code <TOTP_CODE>', '6-digit TOTP code (tier totp; prompted for, or read from stdin, when omitted)')
    .option('--passphrase <PASSPHRASE>', 'passphrase of the sealed TOTP key (tier totp; prompted for, or read from stdin, when omitted)')
}

interface MintOpts {
  tier: string
  code?: string
  passphrase?: string
  url?: string
  home?: string
  userId?: string
  group?: string[]
  lifetime?: string
}

function addMintOptions(cmd: Command): Command {
  return addTierOptions(cmd)
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--home <dir>', 'state directory holding the signer keys ($SVC_HOME, default ~/.svc)')
    .option('--user-id <id>', 'user id recorded on the session (selects group policy)')
    .option('--group <name...>', 'groups recorded on the session (selects group policy)')
    .option('--lifetime <duration>', 'session lifetime, e.g. 4h or 1h30m (default and maximum 12h)')
}

async function run(io: CliIo, opts: MintOpts, rotates?: string): Promise<void> {
  const minted = await mintOnDaemon(io, {
    tier: opts.tier,
    home: svcHome(io.env, opts.home),
    baseUrl: daemonUrl(io.env, opts.url),
    code: opts.code,
    passphrase: opts.passphrase,
    userId: opts.userId,
    groups: opts.group,
    rotates,
    lifetimeMs: durationOption('--lifetime', opts.lifetime),
  })
  io.out(JSON.stringify(minted, null, 2))
}

export function makeSessionCommand(io: CliIo): Command {
  const session = new Command('session').description('mint, rotate and list ledger sessions')
  const create = addMintOptions(new Command('create').description('mint a short-lived session on the daemon'))
  create.action((opts: MintOpts) => run(io, opts))
  const rotate = addMintOptions(new Command('rotate').description('replace a (possibly expired) session with a freshly minted one')).requiredOption(
    '--id <session_id>',
    'the session to replace',
  )
  rotate.action((opts: MintOpts & { id: string }) => run(io, opts, opts.id))
  const list = new Command('list')
    .description('list the daemon’s sessions (live ones, then ones recorded in the ledger before a restart)')
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .option('--json', 'print the daemon’s answer as JSON')
    .action(async (opts: { url?: string; json?: boolean }) => {
      const { sessions } = await callDaemon<{ sessions: SessionRow[] }>(daemonUrl(io.env, opts.url), '/v1/sessions')
      if (opts.json) return io.out(JSON.stringify(sessions, null, 2))
      if (sessions.length === 0) return io.out('no sessions: mint one with `svc session create --tier <tier>` or run `svc agent --tier <tier>`')
      io.out(renderSessions(sessions))
    })
  return session.addCommand(create).addCommand(rotate).addCommand(list)
}

interface SessionRow {
  session_id: string
  signer: string
  state: string
  current?: boolean
  user_id?: string
  groups?: string[]
  expires_at: string
  idle_expires_at?: string
  rotates?: string
}

/** One line per session: current marker, id, signer, state, expiry, identity. */
export function renderSessions(rows: readonly SessionRow[]): string {
  const lines = rows.map((s) => {
    const identity = [s.user_id ? `user ${s.user_id}` : '', s.groups?.length ? `groups ${s.groups.join(',')}` : ''].filter(Boolean).join(' ')
    const ends = s.state === 'active' ? `expires ${s.expires_at}${s.idle_expires_at ? ` (idle ${s.idle_expires_at})` : ''}` : `until ${s.expires_at}`
    return `${s.current ? '*' : ' '} ${s.session_id}  ${s.signer.padEnd(11)} ${s.state.padEnd(7)} ${ends}${identity ? `  ${identity}` : ''}`
  })
  return ['  session                       signer      state   validity', ...lines].join('\n')
}
