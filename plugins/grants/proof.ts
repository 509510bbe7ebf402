/**
 * What the user signs to grant an allow: a small request (a code, or a gate and a project; the window; when;
 * a nonce), signed by a host key the daemon trusts to certify sessions — the key `svc session create` and the
 * renewer (`svc agent`) sign with. The agent never holds that key (it lives under `$SVC_HOME/signer/`, which the
 * self-protection pack keeps out of reach), so it cannot sign one. Light on purpose: the CLI imports it.
 */
import { canonicalSha256, signNative, verifyNative, type SigningKey } from '../../core/index.ts'
import canonicalize from 'canonicalize'

/** Domain separation: a grant signature can never pass as a session certificate, a leaf or a checkpoint. */
export const GRANT_SIG_PREFIX = 'svc/grant/v1\n'

/** How long a signed request stays acceptable: it is made and sent by one command. */
export const GRANT_REQUEST_TTL_MS = 2 * 60_000

/** The grant a user asks for: one exact call by its code, or a gate in a project. */
export type GrantRequest =
  | { readonly v: 1; readonly kind: 'call'; readonly code: string; readonly for_ms?: number; readonly issued_at_ms: number; readonly nonce: string }
  | { readonly v: 1; readonly kind: 'rule'; readonly gate: string; readonly project: string; readonly for_ms: number; readonly issued_at_ms: number; readonly nonce: string }

/** The body of `POST /v1/grants`: the request and, unless an operator token is presented, its host-key signature. */
export interface GrantBody {
  readonly request: GrantRequest
  readonly host_public_key?: string
  readonly signature?: string
}

/** The bytes a host key signs for `request`. */
export function grantMessage(request: GrantRequest): Buffer {
  return Buffer.from(`${GRANT_SIG_PREFIX}${canonicalize(request) ?? ''}`, 'utf8')
}

/** Signs `request` with an unlocked host key (the CLI side). */
export function signGrant(request: GrantRequest, key: SigningKey): GrantBody {
  return { request, host_public_key: key.publicKey.toString('base64'), signature: signNative(key, grantMessage(request)).toString('base64') }
}

/** True when `signature` is `publicKey`'s signature over `request`. */
export function grantSignatureValid(request: GrantRequest, publicKey: string, signature: string): boolean {
  return verifyNative(Buffer.from(signature, 'base64'), grantMessage(request), Buffer.from(publicKey, 'base64'))
}

/** A stable identity of a request, for the replay check. */
export function requestId(request: GrantRequest): string {
  return canonicalSha256(request)
}
