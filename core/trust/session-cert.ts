/**
 * The session certificate: a bundle naming a fresh session public key, its signer kind, validity window and
 * optional identity claims, signed by the host CLI's long-lived key over
 * `"svc/session-cert/v1\n" ‖ JCS(bundle)`. The daemon checks it against the host keys it trusts; the ledger
 * embeds it in the session's first leaf, so offline verifiers can chain leaf → session key → host key.
 */
import { hash } from 'node:crypto'
import { canonicalJson } from '../ledger/jcs.ts'
import { signNative, type SignatureVerifier, type SigningKey } from '../ledger/ed25519.ts'
import type { SessionBundle, SessionCertificate } from '../types.ts'

/** Domain separation for session certificates signed by a host key. */
export const SESSION_CERT_PREFIX = 'svc/session-cert/v1\n'

/** Short key id: hex of the first 4 bytes of SHA-256(public key). */
export function keyId(publicKey: Uint8Array): string {
  return hash('sha256', publicKey, 'buffer').subarray(0, 4).toString('hex')
}

/** Session ids are derived from the session key, so a certificate cannot be re-bound to another id. */
export function sessionIdFor(sessionPublicKey: Uint8Array): string {
  return `ses_${hash('sha256', sessionPublicKey, 'buffer').subarray(0, 12).toString('hex')}`
}

/** Exact bytes the host key signs. */
function sessionCertMessage(bundle: SessionBundle): Buffer {
  return Buffer.from(SESSION_CERT_PREFIX + canonicalJson(bundle), 'utf8')
}

/** Signs a bundle with the host key. */
export function signSessionBundle(bundle: SessionBundle, hostKey: SigningKey): SessionCertificate {
  return { bundle, signature: signNative(hostKey, sessionCertMessage(bundle)).toString('base64') }
}

/** Checks a certificate's signature against the host public key it names; a reason when it fails. */
export function checkSessionCertificate(cert: SessionCertificate, verify: SignatureVerifier): string | undefined {
  const b = cert.bundle
  if (b.signer === 'unattested') return cert.signature === undefined ? undefined : 'an unattested bundle carries no signature'
  if (!b.session_public_key || !b.host_public_key || !cert.signature) return 'certificate lacks a session key, host key or signature'
  const sessionKey = Buffer.from(b.session_public_key, 'base64')
  if (sessionKey.length !== 32) return 'session_public_key is not a 32-byte key'
  if (b.session_id !== sessionIdFor(sessionKey)) return 'session_id does not match the session key'
  const ok = verify(Buffer.from(cert.signature, 'base64'), sessionCertMessage(b), Buffer.from(b.host_public_key, 'base64'))
  return ok ? undefined : 'host signature does not verify'
}
