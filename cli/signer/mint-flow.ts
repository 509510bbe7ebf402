/**
 * The whole mint as every minting command (`svc session create|rotate`, `svc install`, `svc uninstall`,
 * `npm start`) runs it: banner first (never suppressible), unlock the tier's host key, sign a fresh session
 * bundle, post it to the daemon. Signer refusals become CliErrors with the signer's own message.
 */
import { parseTier, signerKindOf } from '../../core/types.ts'
import { callDaemon, operatorToken } from '../http.ts'
import { banner, CliError, stderrColour, type CliIo } from '../io.ts'
import { unlockHostKey, type HostSigner } from './long-lived-key.ts'
import { mintSession } from './mint.ts'
import { SignerError } from './signer-error.ts'

export interface MintFlowOptions {
  readonly tier: string
  readonly home: string
  readonly baseUrl: string
  readonly code?: string
  readonly passphrase?: string
  readonly userId?: string
  readonly groups?: readonly string[]
  readonly rotates?: string
  readonly lifetimeMs?: number
  /** A host key unlocked earlier (the renewer holds a TOTP unlock for its unlock lifetime): no prompt, no code. */
  readonly host?: HostSigner
}

/** The daemon's answer to a session create. */
export interface MintedSession {
  readonly session_id: string
  readonly signer: string
  readonly expires_at: string
  readonly ledger_seq?: number
  readonly [key: string]: unknown
}

/**
 * The TOTP tier's passphrase and code: given as options, else typed at hidden prompts, else piped on stdin
 * (passphrase line, then code line). Missing either is a usage error before anything changes.
 */
export async function totpSecrets(io: CliIo, given: { code?: string; passphrase?: string }): Promise<{ code: string; passphrase: string }> {
  const passphrase = given.passphrase ?? (await io.ask('TOTP signer passphrase: ', { hidden: true }))
  const code = given.code ?? (await io.ask('6-digit TOTP code: ', { hidden: true }))
  if (!passphrase || !code || !/^\d{6}$/.test(code.trim())) {
    throw new CliError(
      '--tier totp needs the signer passphrase and a current 6-digit code: type them at the prompts, pipe them on stdin (passphrase line, then code line), or pass --passphrase and --code',
      2,
    )
  }
  return { code: code.trim(), passphrase }
}

/** Unlocks the host key of `opts.tier` (asking for the TOTP secrets when needed); SignerError when it cannot. */
export async function unlockForMint(io: CliIo, opts: Pick<MintFlowOptions, 'tier' | 'home' | 'code' | 'passphrase'>): Promise<HostSigner> {
  const tier = parseTier(opts.tier)
  const { code, passphrase } = tier === 'totp' ? await totpSecrets(io, opts) : opts
  return unlockHostKey(tier, { home: opts.home, env: io.env, code, passphrase })
}

/** Mints a session on the daemon at `baseUrl`; throws CliError (nothing minted) on any refusal. */
export async function mintOnDaemon(io: CliIo, opts: MintFlowOptions): Promise<MintedSession> {
  let tier
  try {
    tier = parseTier(opts.tier)
  } catch (err) {
    throw new CliError((err as Error).message, 2)
  }
  const kind = signerKindOf(tier)
  if (kind === 'unattested' || kind === 'software' || kind === 'totp') io.err(banner(kind, stderrColour(io.env)))
  let body
  try {
    const host = opts.host ?? (await unlockForMint(io, opts))
    body = mintSession(host, { userId: opts.userId, groups: opts.groups, rotates: opts.rotates, lifetimeMs: opts.lifetimeMs })
  } catch (err) {
    if (err instanceof SignerError) throw new CliError(err.message)
    throw err
  }
  // An unattested session, or a rotation that may end an active one, needs operator rights: send a token
  // when the environment provides one (SVC_TOKEN, SVC_ADMIN_PASSWORD) and let the daemon refuse otherwise.
  const needsOperator = kind === 'unattested' || opts.rotates !== undefined
  const token = needsOperator && (io.env.SVC_TOKEN || io.env.SVC_ADMIN_PASSWORD) ? await operatorToken(opts.baseUrl, io) : undefined
  return callDaemon<MintedSession>(opts.baseUrl, '/v1/sessions/create', { body, ...(token ? { token } : {}) })
}
