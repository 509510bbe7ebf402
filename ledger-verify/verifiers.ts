/**
 * Signature verifiers `svc ledger verify` can use, by name (threads receive the name, not the function).
 * `fast` is libsodium (sodium-native, a prebuilt binding shipped in its npm package): about twice node:crypto's
 * Ed25519 verify rate here, and at least as strict (it also refuses small-order keys and R values, which honest
 * signatures never have). When the binding cannot load, `fast` falls back to node:crypto.
 */
import { verifyNative, verifyPortable, type SignatureVerifier } from '../core/ledger/ed25519.ts'

export type VerifierName = 'fast' | 'native' | 'portable'

interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean
}

let sodium: Promise<SignatureVerifier | undefined> | undefined
/** A variable specifier: the binding ships no type declarations (Sodium above is the one call used). */
const SODIUM_MODULE = 'sodium-native'

/** libsodium's strict Ed25519 verify, or undefined when the binding is unavailable. */
export function sodiumVerifier(): Promise<SignatureVerifier | undefined> {
  sodium ??= import(SODIUM_MODULE).then(
    (mod: { default?: Sodium }) => {
      const s = (mod.default ?? mod) as Sodium
      return (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean => {
        if (signature.length !== 64 || publicKey.length !== 32) return false
        try {
          return s.crypto_sign_verify_detached(signature, message, publicKey)
        } catch {
          return false
        }
      }
    },
    () => undefined,
  )
  return sodium
}

export async function verifierFor(name: VerifierName): Promise<SignatureVerifier> {
  if (name === 'portable') return verifyPortable
  if (name === 'fast') return (await sodiumVerifier()) ?? verifyNative
  return verifyNative
}
