/**
 * Ed25519 in two implementations with byte-identical results: node:crypto (OpenSSL, ~19k signs/s here) on
 * the daemon's hot path, and @noble/ed25519 (pure JS) where portability matters — offline verification in
 * the CLI or a browser. Both verify strictly (RFC 8032, no ZIP-215 leniency).
 */
import { createPrivateKey, createPublicKey, randomBytes, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto'
import * as ed from '@noble/ed25519'
import { sha512 } from '@noble/hashes/sha2.js'

ed.hashes.sha512 = sha512

const PKCS8_SEED_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/** A native signing key made from a 32-byte seed, with its raw 32-byte public key. */
export interface SigningKey {
  readonly privateKey: KeyObject
  readonly publicKey: Buffer
}

/** Builds a native Ed25519 signing key from a 32-byte RFC 8032 seed. */
export function signingKeyFromSeed(seed: Uint8Array): SigningKey {
  if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes')
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, seed]), format: 'der', type: 'pkcs8' })
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
  return { privateKey, publicKey: Buffer.from(spki.subarray(SPKI_PREFIX.length)) }
}

/** A fresh random 32-byte seed. */
export function newSeed(): Buffer {
  return randomBytes(32)
}

/** Signs natively (OpenSSL). */
export function signNative(key: SigningKey, message: Uint8Array): Buffer {
  return nodeSign(null, message, key.privateKey)
}

const publicKeyCache = new Map<string, KeyObject>()

function nativePublicKey(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString('base64')
  let key = publicKeyCache.get(id)
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' })
    if (publicKeyCache.size > 1024) publicKeyCache.clear()
    publicKeyCache.set(id, key)
  }
  return key
}

/** Verifies natively; false (never a throw) on malformed keys or signatures. */
export function verifyNative(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false
  try {
    return nodeVerify(null, message, nativePublicKey(publicKey), signature)
  } catch {
    return false
  }
}

/** Signs with pure-JS noble (portable; slow: keep it off the hot path). */
export function signPortable(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return ed.sign(message, seed)
}

/** Derives the public key with noble. */
export function publicKeyPortable(seed: Uint8Array): Uint8Array {
  return ed.getPublicKey(seed)
}

/** Verifies with noble, strict RFC 8032 semantics; false on malformed input. */
export function verifyPortable(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false
  try {
    return ed.verify(signature, message, publicKey, { zip215: false })
  } catch {
    return false
  }
}

/** A verification function; callers choose native speed or portable noble. */
export type SignatureVerifier = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean
