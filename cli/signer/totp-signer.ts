/**
 * The TOTP tier: enrollment creates a software Ed25519 seed and an RFC 6238 secret, seals both under the
 * passphrase and prints an otpauth:// URI. A mint needs the passphrase (to unseal) and a current 6-digit
 * code (checked with otplib, ±1 step, never the same step twice) before the key signs anything. Wrong codes
 * (and passphrases) lock the signer for a while after a few, so guessing a code costs days, not hours; a mint and
 * an enrollment hold a lock file, so a mint that unsealed the old secrets never writes them back over a rotation.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { generateSecret, generateURI, verifySync } from 'otplib'
import { newSeed, signingKeyFromSeed, trustHostKey, writePrivateFile, type SigningKey } from '../../core/index.ts'
import { seal, unseal, type SealCost, type SealedBlob } from './seal.ts'
import { SignerError } from './signer-error.ts'

const MIN_PASSPHRASE = 8
/** Wrong attempts in a row before the signer locks; each further one doubles the lock, up to a day. */
const FREE_ATTEMPTS = 5
const FIRST_LOCK_MS = 60_000
const MAX_LOCK_MS = 24 * 3600_000
/** A lock file older than this was left by a process that died (an unseal takes about a second). */
const STALE_LOCK_MS = 60_000

interface TotpFile {
  readonly v: 1
  readonly public_key: string
  readonly enrolled_at_ms: number
  readonly expires_at_ms?: number
  /** Last accepted time step: a code is never accepted twice (replay). */
  readonly last_time_step?: number
  /** Wrong codes or passphrases since the last mint, and until when the signer refuses every attempt. */
  readonly failed_attempts?: number
  readonly locked_until_ms?: number
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
  return withTotpLock(home, () => enroll(home, passphrase, options))
}

function enroll(home: string, passphrase: string, options: { ttlMs?: number; now?: number; sealCost?: SealCost }): { uri: string; publicKey: Buffer } {
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

/** Unseals the TOTP signer after checking expiry, lock, passphrase and code, in that order; consumes the code. */
export function unlockTotp(home: string, code: string | undefined, passphrase: string | undefined, now = Date.now()): SigningKey {
  const path = totpFilePath(home)
  if (!existsSync(path)) throw new SignerError('not_enrolled', 'no TOTP signer is enrolled: run `svc signer enroll --tier totp --passphrase <PASSPHRASE>`')
  return withTotpLock(home, () => unlock(path, code, passphrase, now))
}

function unlock(path: string, code: string | undefined, passphrase: string | undefined, now: number): SigningKey {
  const file = JSON.parse(readFileSync(path, 'utf8')) as TotpFile
  if (file.expires_at_ms !== undefined && now >= file.expires_at_ms) {
    throw new SignerError('enrollment_expired', `the TOTP enrollment expired at ${new Date(file.expires_at_ms).toISOString()}: re-enroll with \`svc signer enroll --tier totp\``)
  }
  if (file.locked_until_ms !== undefined && now < file.locked_until_ms) {
    throw new SignerError(
      'locked',
      `the TOTP signer is locked after ${file.failed_attempts} wrong attempts until ${new Date(file.locked_until_ms).toISOString()} (nothing was minted)`,
    )
  }
  if (code === undefined || !/^[0-9]{6}$/.test(code)) throw new SignerError('bad_code', '--code must be exactly 6 digits (the current code of your authenticator app)')
  if (!passphrase) throw new SignerError('wrong_passphrase', '--passphrase is required for --tier totp')
  // Records a wrong attempt (locking the signer past FREE_ATTEMPTS) and answers the error to throw.
  const failed = (err: SignerError): SignerError => {
    const attempts = (file.failed_attempts ?? 0) + 1
    const lockMs = attempts < FREE_ATTEMPTS ? 0 : Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (attempts - FREE_ATTEMPTS))
    const { locked_until_ms: _, ...rest } = file
    writePrivateFile(path, `${JSON.stringify({ ...rest, failed_attempts: attempts, ...(lockMs > 0 ? { locked_until_ms: now + lockMs } : {}) }, null, 2)}\n`)
    return lockMs > 0 ? new SignerError(err.code, `${err.message}; locked for ${Math.round(lockMs / 1000)} s after ${attempts} wrong attempts`) : err
  }
  let secrets: SealedSecrets
  try {
    secrets = unseal<SealedSecrets>(file.sealed, passphrase)
  } catch (err) {
    throw err instanceof SignerError && err.code === 'wrong_passphrase' ? failed(err) : err
  }
  const result = verifySync({
    secret: secrets.totp_secret,
    token: code,
    epoch: Math.floor(now / 1000),
    epochTolerance: 30,
    ...(file.last_time_step === undefined ? {} : { afterTimeStep: file.last_time_step }),
  })
  if (!result.valid) throw failed(new SignerError('wrong_code', 'wrong or already-used TOTP code (nothing was minted); wait for the next code and try again'))
  const timeStep = 'timeStep' in result ? result.timeStep : Math.floor(now / 30_000)
  const { failed_attempts: _f, locked_until_ms: _l, ...rest } = file
  writePrivateFile(path, `${JSON.stringify({ ...rest, last_time_step: timeStep }, null, 2)}\n`)
  return signingKeyFromSeed(Buffer.from(secrets.seed, 'base64'))
}

/**
 * One mint or enrollment at a time per home, across processes: a mint reads the file, unseals (about a second)
 * and writes it back; without the lock a rotation in that second was undone, and two mints could take one code.
 */
function withTotpLock<T>(home: string, run: () => T): T {
  const lock = join(dirname(totpFilePath(home)), 'totp.lock')
  mkdirSync(dirname(lock), { recursive: true, mode: 0o700 })
  const take = () => openSync(lock, 'wx', 0o600)
  let fd: number
  try {
    fd = take()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    if (Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) {
      throw new SignerError('busy', `another mint or enrollment of the TOTP signer is running (${lock}); try again in a moment`)
    }
    rmSync(lock, { force: true })
    fd = take()
  }
  try {
    return run()
  } finally {
    closeSync(fd)
    rmSync(lock, { force: true })
  }
}
