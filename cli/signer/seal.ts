/**
 * Passphrase sealing: scrypt derives a 256-bit key from the passphrase (the KEK needs real entropy; a
 * 6-digit code never serves as one), and AES-256-GCM encrypts and authenticates the secret JSON. A wrong
 * passphrase or any changed byte fails authentication.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto'
import { SignerError } from './signer-error.ts'

/** scrypt cost parameters, stored with each sealed blob (unsealing reads them back from it). */
export interface SealCost {
  readonly N: number
  readonly r: number
  readonly p: number
}

/** scrypt cost: N = 2^17, r = 8 (128 MiB, ~0.3 s here). */
export const DEFAULT_SEAL_COST: SealCost = { N: 2 ** 17, r: 8, p: 1 }
const AAD = Buffer.from('svc/seal/v1', 'utf8')

export interface SealedBlob {
  readonly v: 1
  readonly kdf: 'scrypt'
  readonly N: number
  readonly r: number
  readonly p: number
  readonly salt: string
  readonly aead: 'aes-256-gcm'
  readonly iv: string
  readonly tag: string
  readonly ciphertext: string
}

function deriveKey(passphrase: string, salt: Buffer, cost: SealCost): Buffer {
  return scryptSync(passphrase.normalize('NFC'), salt, 32, { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 })
}

/** Seals a JSON-serialisable secret under a passphrase (`cost`: tests pass a cheap one; svc always the default). */
export function seal(secret: unknown, passphrase: string, cost: SealCost = DEFAULT_SEAL_COST): SealedBlob {
  const salt = randomBytes(16)
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', deriveKey(passphrase, salt, cost), iv)
  cipher.setAAD(AAD)
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()])
  return {
    v: 1,
    kdf: 'scrypt',
    N: cost.N,
    r: cost.r,
    p: cost.p,
    salt: salt.toString('base64'),
    aead: 'aes-256-gcm',
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  }
}

/** Opens a sealed blob; throws SignerError `wrong_passphrase` when authentication fails. */
export function unseal<T>(blob: SealedBlob, passphrase: string): T {
  if (blob.v !== 1 || blob.kdf !== 'scrypt' || blob.aead !== 'aes-256-gcm') throw new SignerError('seal_unsupported', 'sealed key uses an unknown format')
  const key = deriveKey(passphrase, Buffer.from(blob.salt, 'base64'), { N: blob.N, r: blob.r, p: blob.p })
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(blob.iv, 'base64'))
  decipher.setAAD(AAD)
  decipher.setAuthTag(Buffer.from(blob.tag, 'base64'))
  let plain: Buffer
  try {
    plain = Buffer.concat([decipher.update(Buffer.from(blob.ciphertext, 'base64')), decipher.final()])
  } catch {
    throw new SignerError('wrong_passphrase', 'wrong passphrase: the sealed TOTP signer could not be opened (nothing was minted)')
  }
  return JSON.parse(plain.toString('utf8')) as T
}
