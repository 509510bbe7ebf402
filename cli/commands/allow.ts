/**
 * `svc allow <code> [--for 10m]` and `svc allow rule <gate> [--project DIR] [--for 2h]`: the user lets a denied
 * call through (once, or for a window), or stops one gate denying in one project for a while (docs/grants.md).
 * The grant is signed by the host key of the tier the daemon's session uses (the key `svc session create` and
 * `svc agent` sign with: no prompt for software or os-keychain), or vouched for by an operator token (SVC_TOKEN,
 * SVC_ADMIN_PASSWORD, or the password at a prompt) when that tier has no key.
 */
import { randomBytes } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { Command } from 'commander'
import { parseTier, type Tier } from '../../core/types.ts'
import { signGrant, type GrantBody, type GrantRequest } from '../../plugins/grants/index.ts'
import { durationOption } from '../duration-option.ts'
import { callDaemon, operatorToken } from '../http.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl, svcHome } from '../paths.ts'
import type { CurrentSession } from '../agent/renewer.ts'

interface Options {
  readonly url?: string
  readonly home?: string
  readonly tier?: string
  readonly for?: string
}

interface Granted {
  readonly id: string
  readonly kind: string
  readonly gates: readonly string[]
  readonly once: boolean
  readonly expires_at: string
  readonly ledger_seq: number
  readonly project?: string
  readonly cwd?: string
}

const withShared = (c: Command) =>
  c
    .option('--for <duration>', 'how long the grant lasts (e.g. 10m, 2h)')
    .option('--tier <tier>', "the signer that vouches for you (default: the tier of the daemon's session)")
    .option('--url <url>', 'daemon base URL')
    .option('--home <dir>', 'svc home (default $SVC_HOME or ~/.svc)')

export function makeAllowCommand(io: CliIo): Command {
  const cmd = withShared(
    new Command('allow')
      .description('let a denied call through once by the code its deny named, or stop one gate denying in a project for a while (`svc allow rule`)')
      .argument('<code>', 'the code the deny named (e.g. K7QF3D)'),
  ).action(async (code: string, opts: Options) => {
    const forMs = durationOption('--for', opts.for)
    const granted = await grant(io, opts, { v: 1, kind: 'call', code: code.trim().toUpperCase(), ...(forMs === undefined ? {} : { for_ms: forMs }), ...fresh() })
    const how = granted.once ? 'once' : 'repeatedly'
    io.out(
      `allowed ${how} until ${granted.expires_at}: the exact call of code ${code.toUpperCase()} from ${granted.cwd || '(no directory)'} (${granted.gates.join(', ')}); grant ${granted.id}, ledger seq ${granted.ledger_seq}`,
    )
  })
  cmd.addCommand(
    withShared(
      new Command('rule')
        .description('stop one gate denying in one project for a while (default 1h, at most 24h)')
        .argument('<gate-id>', 'the gate, as a deny names it (e.g. secrets.env-file-overwrite)')
        .option('--project <dir>', 'the project directory it applies in (default: the current directory)'),
    ).action(async (gate: string, opts: Options & { project?: string }) => {
      const forMs = durationOption('--for', opts.for) ?? 3_600_000
      const project = projectDir(opts.project ?? process.cwd())
      const granted = await grant(io, opts, { v: 1, kind: 'rule', gate, project, for_ms: forMs, ...fresh() })
      io.out(`${gate} does not deny in ${granted.project} until ${granted.expires_at}; grant ${granted.id}, ledger seq ${granted.ledger_seq}`)
    }),
  )
  return cmd
}

function fresh(): { issued_at_ms: number; nonce: string } {
  return { issued_at_ms: Date.now(), nonce: randomBytes(12).toString('base64url') }
}

function projectDir(dir: string): string {
  try {
    return realpathSync(resolve(dir))
  } catch {
    throw new CliError(`--project: ${dir} is not a directory this user can open`, 2)
  }
}

/** Signs `request` (or gets an operator token) and posts it. */
async function grant(io: CliIo, opts: Options, request: GrantRequest): Promise<Granted> {
  const url = daemonUrl(io.env, opts.url)
  const token = io.env.SVC_TOKEN ? await operatorToken(url, io) : undefined
  if (token) return callDaemon<Granted>(url, '/v1/grants', { body: { request } satisfies GrantBody, token })
  const tier = await tierOf(url, opts.tier)
  if (tier === undefined || tier === 'unattested') {
    return callDaemon<Granted>(url, '/v1/grants', { body: { request } satisfies GrantBody, token: await operatorToken(url, io) })
  }
  const { unlockHostKey } = await import('../signer/long-lived-key.ts')
  const { totpSecrets } = await import('../signer/mint-flow.ts')
  const { SignerError } = await import('../signer/signer-error.ts')
  const secrets = tier === 'totp' ? await totpSecrets(io, {}) : {}
  let body: GrantBody
  try {
    const host = unlockHostKey(tier, { home: svcHome(io.env, opts.home), env: io.env, ...secrets })
    if (!host.key) throw new CliError(`the ${tier} tier has no key to sign a grant with`)
    body = signGrant(request, host.key)
  } catch (err) {
    if (err instanceof SignerError) throw new CliError(err.message)
    throw err
  }
  return callDaemon<Granted>(url, '/v1/grants', { body })
}

/** `--tier`, else the tier of the daemon's current session (the signer the user already vouches with). */
async function tierOf(url: string, flag: string | undefined): Promise<Tier | undefined> {
  try {
    if (flag) return parseTier(flag)
  } catch (err) {
    throw new CliError((err as Error).message, 2)
  }
  const current = await callDaemon<CurrentSession>(url, '/v1/sessions/current')
  const signer = current.session?.signer
  return signer === undefined ? undefined : parseTier(signer.replace('_', '-'))
}
