/**
 * The TOTP tier: enrollment creates a software Ed25519 seed and an RFC 6238 secret, seals both under the
 * passphrase and prints an otpauth:// URI. A mint needs the passphrase (to unseal) and a current 6-digit
 * code (checked with otplib, ±1 step, never the same step twice) before the key signs anything.
 */
import { existsSync, readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { generateSecret, generateURI, verifySync } from 'otplib'
import { newSeed, signingKeyFromSeed, trustHostKey, writePrivateFile, type SigningKey } from '../../core/index.ts'
import { seal, unseal, type SealCost, type SealedBlob } from './seal.ts'
import { SignerError } from './signer-error.ts'

const MIN_PASSPHRASE = 8

interface TotpFile {
  readonly v: 1
  readonly public_key: string
  readonly enrolled_at_ms: number
  readonly expires_at_ms?: number
  /** Last accepted time step: a code is never accepted twice (replay). */
  readonly last_time_step?: number
  readonly sealed: SealedBlob
}

interface SealedSecrets {
  readonly seed: string
  readonly totp_secret: string
}

export function totpFilePath(home: string): string {
  return join(home, 'signer', 'totp.sealed.json')
}

/** Enrolls (or re-enrolls) the TOTP signer; returns the otpauth:// URI to scan. */
export function enrollTotp(home: string, passphrase: string, options: { ttlMs?: number; now?: number; sealCost?: SealCost } = {}): { uri: string; publicKey: Buffer } {
  if (typeof passphrase !== 'string' || passphrase.length < MIN_PASSPHRASE) {
    throw new SignerError('weak_passphrase', `--passphrase is required and must be at least ${MIN_PASSPHRASE} characters`)
  }
  const now = options.now ?? Date.now()
  const seed = newSeed()
  const key = signingKeyFromSeed(seed)
  const totpSecret = generateSecret({ length: 20 })
  const file: TotpFile = {
    v: 1,
    public_key: key.publicKey.toString('base64'),
    enrolled_at_ms: now,
    ...(options.ttlMs === undefined ? {} : { expires_at_ms: now + options.ttlMs }),
    sealed: seal({ seed: seed.toString('base64'), totp_secret: totpSecret } satisfies SealedSecrets, passphrase, options.sealCost),
  }
  writePrivateFile(totpFilePath(home), `${JSON.stringify(file, null, 2)}\n`)
  trustHostKey(home, key.publicKey, 'totp', `totp key ${totpFilePath(home)}`, { replaceKind: true, now })
  return { uri: generateURI({ issuer: 'svc', label: `svc@${hostname()}`, secret: totpSecret }), publicKey: key.publicKey }
}

/** Unseals the TOTP signer after checking expiry, passphrase and code, in that order; consumes the code. */
export function unlockTotp(home: string, code: string | undefined, passphrase: string | undefined, now = Date.now()): SigningKey {
  const path = totpFilePath(home)
  if (!existsSync(path)) throw new SignerError('not_enrolled', 'no TOTP signer is enrolled: run `svc signer enroll --tier totp --passphrase <PASSPHRASE>`')
  const file = JSON.parse(readFileSync(path, 'utf8')) as TotpFile
  if (file.expires_at_ms !== undefined && now >= file.expires_at_ms) {
    throw new SignerError('enrollment_expired', `the TOTP enrollment expired at ${new Date(file.expires_at_ms).toISOString()}: re-enroll with \`svc signer enroll --tier totp\``)
  }
  if (code === undefined || !/^[0-9]{6}$/.test(code)) throw new SignerError('bad_code', '--code must be exactly 6 digits (the current code of your authenticator app)')
  if (!passphrase) throw new SignerError('wrong_passphrase', '--passphrase is required for --tier totp')
  const secrets = unseal<SealedSecrets>(file.sealed, passphrase)
  const result = verifySync({
    secret: secrets.totp_secret,
    token: code,
    epoch: Math.floor(now / 1000),
    epochTolerance: 30,
    ...(file.last_time_step === undefined ? {} : { afterTimeStep: file.last_time_step }),
  })
  if (!result.valid) throw new SignerError('wrong_code', 'wrong or already-used TOTP code (nothing was minted); wait for the next code and try again')
  const timeStep = 'timeStep' in result ? result.timeStep : Math.floor(now / 30_000)
  writePrivateFile(path, `${JSON.stringify({ ...file, last_time_step: timeStep }, null, 2)}\n`)
  return signingKeyFromSeed(Buffer.from(secrets.seed, 'base64'))
}
