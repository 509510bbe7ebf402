/**
 * The software (dev / CI) host key: an Ed25519 seed in `$SVC_HOME/signer/software.key`, created lazily at the
 * first mint with mode 0600 inside a 0700 directory, and trusted by the daemon for the `software` kind.
 * Refused unless `SVC_ALLOW_SOFTWARE_SIGNER=1`; a key file readable by others is refused too.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { newSeed, signingKeyFromSeed, trustHostKey, writePrivateFile, type SigningKey } from '../../core/index.ts'
import { SignerError } from './signer-error.ts'

/** Path of the software key file. */
export function softwareKeyPath(home: string): string {
  return join(home, 'signer', 'software.key')
}

/** Throws unless the environment explicitly allows the software signer. */
function assertSoftwareAllowed(env: NodeJS.ProcessEnv): void {
  if (env.SVC_ALLOW_SOFTWARE_SIGNER !== '1') {
    throw new SignerError(
      'software_refused',
      'the software signer is refused: it keeps its key on disk (dev/CI only). Set SVC_ALLOW_SOFTWARE_SIGNER=1 to use it, or choose --tier totp or --tier os-keychain.',
    )
  }
}

/** Refuses key material that group or others can read or write, or a directory others can enter. */
function assertPrivate(path: string, kind: 'file' | 'directory'): void {
  const mode = statSync(path).mode & 0o777
  if ((mode & 0o077) !== 0) {
    throw new SignerError('insecure_permissions', `${path} has mode ${mode.toString(8)}; a signer ${kind} must be private (chmod ${kind === 'file' ? '600' : '700'} ${path})`)
  }
}

/** Loads the software key, creating and trusting it on first use. */
export function loadSoftwareKey(home: string, env: NodeJS.ProcessEnv): SigningKey {
  assertSoftwareAllowed(env)
  const path = softwareKeyPath(home)
  if (!existsSync(path)) {
    const seed = newSeed()
    const key = signingKeyFromSeed(seed)
    writePrivateFile(path, `${JSON.stringify({ v: 1, seed: seed.toString('base64'), public_key: key.publicKey.toString('base64') })}\n`)
    trustHostKey(home, key.publicKey, 'software', `software key ${path}`)
    return key
  }
  assertPrivate(join(home, 'signer'), 'directory')
  assertPrivate(path, 'file')
  const stored = JSON.parse(readFileSync(path, 'utf8')) as { seed?: unknown }
  const seed = typeof stored.seed === 'string' ? Buffer.from(stored.seed, 'base64') : Buffer.alloc(0)
  if (seed.length !== 32) throw new SignerError('key_corrupt', `${path} does not hold a 32-byte Ed25519 seed`)
  return signingKeyFromSeed(seed)
}
