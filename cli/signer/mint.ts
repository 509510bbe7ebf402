/**
 * Mints a session: a fresh session keypair, a bundle naming it (signer kind, issue and expiry times,
 * optional user_id and groups), signed by the host key. The result is the `POST /v1/sessions/create`
 * body; the session seed travels to the daemon (loopback) and is kept there in memory only.
 */
import { newSeed, sessionIdFor, signingKeyFromSeed, signSessionBundle, type SessionBundle, type SessionCertificate } from '../../core/index.ts'
import { randomBytes } from 'node:crypto'
import type { HostSigner } from './long-lived-key.ts'

/** Default session lifetime (docs/architecture.md, "Sessions and their renewal"). */
export const DEFAULT_SESSION_LIFETIME_MS = 12 * 3_600_000

/** Body of `POST /v1/sessions/create`. */
export interface SessionCreateBody {
  readonly certificate: SessionCertificate
  /** Base64 32-byte session seed; absent for unattested sessions. */
  readonly session_secret?: string
  readonly user_id?: string
  readonly groups?: readonly string[]
}

export interface MintOptions {
  readonly lifetimeMs?: number
  readonly userId?: string
  readonly groups?: readonly string[]
  readonly rotates?: string
  readonly now?: number
}

/** Builds and signs a session bundle with the host signer. */
export function mintSession(host: HostSigner, options: MintOptions = {}): SessionCreateBody {
  const now = options.now ?? Date.now()
  const identity = {
    ...(options.userId === undefined ? {} : { user_id: options.userId }),
    ...(options.groups === undefined ? {} : { groups: [...options.groups] }),
  }
  const times = {
    issued_at_ms: now,
    expires_at_ms: now + (options.lifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS),
    ...(options.rotates === undefined ? {} : { rotates: options.rotates }),
  }
  if (!host.key) {
    const bundle: SessionBundle = { v: 1, session_id: `ses_${randomBytes(12).toString('hex')}`, signer: 'unattested', ...times, ...identity }
    return { certificate: { bundle }, ...identity }
  }
  const seed = newSeed()
  const sessionKey = signingKeyFromSeed(seed)
  const bundle: SessionBundle = {
    v: 1,
    session_id: sessionIdFor(sessionKey.publicKey),
    signer: host.kind,
    session_public_key: sessionKey.publicKey.toString('base64'),
    host_public_key: host.key.publicKey.toString('base64'),
    ...times,
    ...identity,
  }
  return { certificate: signSessionBundle(bundle, host.key), session_secret: seed.toString('base64'), ...identity }
}
