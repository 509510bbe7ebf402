/** Signature verifiers `svc ledger verify` can use, by name (threads receive the name, not the function). */
import { verifyNative, verifyPortable, type SignatureVerifier } from './ed25519.ts'

export type VerifierName = 'native' | 'portable'

export async function verifierFor(name: VerifierName): Promise<SignatureVerifier> {
  return name === 'portable' ? verifyPortable : verifyNative
}
