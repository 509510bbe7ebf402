/**
 * Daemon-side checks of a session create (or rotate) request before anything is registered: the signer
 * kind's switch or support, the host key trusted for exactly that kind, the host signature, the session
 * seed matching the certified key, and a sane validity window. Every refusal is an ApiProblem naming why.
 */
import { ApiProblem } from '../errors.ts'
import { signingKeyFromSeed, verifyNative } from '../ledger/ed25519.ts'
import { findActiveHostKey, trustFilePath } from '../trust/host-keys.ts'
import { checkSessionCertificate } from '../trust/session-cert.ts'
import type { SessionBundle, SessionCertificate } from '../types.ts'
import { DEFAULT_LIFETIME_MS, type NewSession } from './store.ts'

/** Largest clock difference accepted between the CLI's issue time and the daemon's clock. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000

/** The `POST /v1/sessions/create` body. The `signer`-only form is the unattested shorthand. */
export interface SessionCreateRequest {
  readonly certificate?: SessionCertificate
  readonly session_secret?: string
  readonly signer?: string
  readonly user_id?: string
  readonly groups?: readonly string[]
}

export interface AdmitContext {
  readonly home: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly now: number
  readonly maxLifetimeMs?: number
}

/** Validates a create request and returns what to register; throws ApiProblem on any refusal. */
export function admitSession(body: SessionCreateRequest, ctx: AdmitContext): NewSession {
  const cert = body.certificate ?? shorthand(body, ctx.now)
  const b = cert.bundle
  if (b.v !== 1) throw new ApiProblem(400, 'invalid_request', `certificate.bundle.v must be 1, got ${String(b.v)}`)
  sameClaims(body, b)
  if (b.signer === 'unattested') {
    if (ctx.env.SVC_ALLOW_UNATTESTED !== '1') {
      throw new ApiProblem(403, 'forbidden', 'unattested sessions are refused: start the daemon with SVC_ALLOW_UNATTESTED=1 to accept an unsigned ledger')
    }
    if (cert.signature !== undefined || body.session_secret !== undefined)
      throw new ApiProblem(400, 'invalid_request', 'an unattested session carries no signature and no session_secret')
    checkWindow(b, ctx)
    return { signer: 'unattested', certificate: cert, ...claims(b) }
  }
  if (b.signer === 'hardware_key') throw new ApiProblem(501, 'not_implemented', 'hardware-key sessions are not yet implemented')
  if (b.signer === 'software' && ctx.env.SVC_ALLOW_SOFTWARE_SIGNER !== '1') {
    throw new ApiProblem(403, 'forbidden', 'software-signer sessions are refused: start the daemon with SVC_ALLOW_SOFTWARE_SIGNER=1 (dev/CI only)')
  }
  const trusted = b.host_public_key ? findActiveHostKey(ctx.home, b.host_public_key) : undefined
  if (!trusted) {
    throw new ApiProblem(
      403,
      'forbidden',
      `the host key that signed this session is not trusted by the daemon (add it to ${trustFilePath(ctx.home)}; see README "How a host key becomes trusted")`,
    )
  }
  if (trusted.signer !== b.signer) throw new ApiProblem(403, 'forbidden', `the host key is trusted for signer ${trusted.signer}, but the certificate claims ${b.signer}`)
  const problem = checkSessionCertificate(cert, verifyNative)
  if (problem) throw new ApiProblem(403, 'forbidden', `session certificate rejected: ${problem}`)
  const seed = Buffer.from(body.session_secret ?? '', 'base64')
  if (seed.length !== 32) throw new ApiProblem(400, 'invalid_request', 'session_secret must be the base64 32-byte session seed')
  if (signingKeyFromSeed(seed).publicKey.toString('base64') !== b.session_public_key) {
    throw new ApiProblem(400, 'invalid_request', 'session_secret does not match the certified session_public_key')
  }
  checkWindow(b, ctx)
  return { signer: b.signer, certificate: cert, seed, ...claims(b) }
}

function shorthand(body: SessionCreateRequest, now: number): SessionCertificate {
  if (body.signer === undefined) throw new ApiProblem(400, 'invalid_request', 'body needs a "certificate" (signed session bundle), or "signer": "unattested"')
  if (body.signer !== 'unattested') {
    throw new ApiProblem(400, 'invalid_request', `signer "${body.signer}" needs a certificate signed by the host key: mint it with \`svc session create --tier ...\``)
  }
  const bundle: SessionBundle = {
    v: 1,
    session_id: `ses_${Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString('hex')}`,
    signer: 'unattested',
    issued_at_ms: now,
    expires_at_ms: now + DEFAULT_LIFETIME_MS,
    ...(body.user_id === undefined ? {} : { user_id: body.user_id }),
    ...(body.groups === undefined ? {} : { groups: [...body.groups] }),
  }
  return { bundle }
}

function sameClaims(body: SessionCreateRequest, b: SessionBundle): void {
  if (body.user_id !== undefined && body.user_id !== b.user_id) throw new ApiProblem(400, 'invalid_request', 'user_id differs from the one in the signed bundle')
  if (body.groups !== undefined && JSON.stringify(body.groups) !== JSON.stringify(b.groups ?? [])) {
    throw new ApiProblem(400, 'invalid_request', 'groups differ from the ones in the signed bundle')
  }
}

function claims(b: SessionBundle): Pick<NewSession, 'userId' | 'groups'> {
  return { ...(b.user_id === undefined ? {} : { userId: b.user_id }), groups: [...(b.groups ?? [])] }
}

function checkWindow(b: SessionBundle, ctx: AdmitContext): void {
  const max = ctx.maxLifetimeMs ?? DEFAULT_LIFETIME_MS
  if (!Number.isSafeInteger(b.issued_at_ms) || !Number.isSafeInteger(b.expires_at_ms))
    throw new ApiProblem(400, 'invalid_request', 'issued_at_ms and expires_at_ms must be integers')
  if (Math.abs(b.issued_at_ms - ctx.now) > MAX_CLOCK_SKEW_MS) throw new ApiProblem(400, 'invalid_request', 'issued_at_ms is more than 5 minutes away from the daemon clock')
  if (b.expires_at_ms <= ctx.now) throw new ApiProblem(400, 'invalid_request', 'the session bundle has already expired')
  if (b.expires_at_ms - b.issued_at_ms > max) throw new ApiProblem(400, 'invalid_request', `session lifetime exceeds the daemon maximum of ${max / 3_600_000}h`)
}
