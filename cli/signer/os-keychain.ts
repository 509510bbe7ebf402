/**
 * The OS-keychain tier: enrollment stores a fresh Ed25519 seed in an OS keystore (cli/signer/keystores.ts: the
 * macOS login keychain; on Linux the Secret Service where a desktop keyring runs, else the kernel user keyring)
 * and writes `$SVC_HOME/os-keychain.meta.json` (public key, keystore, optional expiry). Each mint reads the seed
 * back, after the CLI has enforced the expiry. Every keystore records the signer kind `os_keychain` (the spec's
 * name for this tier); which keystore holds the key is in the meta file and the trusted-key note. Where no
 * keystore is usable the error says why for each. `SVC_KEYCHAIN_PLATFORM` exists only so tests can drive the
 * macOS path with a fake `security`.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { keyId, newSeed, signingKeyFromSeed, trustHostKey, writePrivateFile, type SigningKey } from '../../core/index.ts'
import { ACCOUNT, chooseKeystore, KEYSTORE_LABELS, readSeed, removeSeed, SERVICE, storeSeed, type KeystoreId, type StoredSeed } from './keystores.ts'
import { SignerError } from './signer-error.ts'

interface KeychainMeta extends StoredSeed {
  readonly v: 1
  readonly public_key: string
  readonly kid: string
  readonly service: string
  readonly account: string
  readonly enrolled_at: string
  readonly expires_at?: string
}

export function keychainMetaPath(home: string): string {
  return join(home, 'os-keychain.meta.json')
}

/** Stores a fresh seed in the keychain, writes the meta file, and trusts the key for `os_keychain`. */
export function enrollOsKeychain(
  home: string,
  env: NodeJS.ProcessEnv,
  options: { ttlMs?: number; now?: number; keystore?: string } = {},
): { publicKey: Buffer; expiresAt?: string; keystore: KeystoreId } {
  const keystore = chooseKeystore(env, options.keystore)
  const now = options.now ?? Date.now()
  const seed = newSeed()
  const key = signingKeyFromSeed(seed)
  const stored = storeSeed(keystore, seed.toString('hex'), env, options.ttlMs)
  const expiresAt = options.ttlMs === undefined ? undefined : new Date(now + options.ttlMs).toISOString()
  const meta: KeychainMeta = {
    v: 1,
    ...stored,
    public_key: key.publicKey.toString('base64'),
    kid: keyId(key.publicKey),
    service: SERVICE,
    account: ACCOUNT,
    enrolled_at: new Date(now).toISOString(),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  }
  writePrivateFile(keychainMetaPath(home), `${JSON.stringify(meta, null, 2)}\n`)
  trustHostKey(home, key.publicKey, 'os_keychain', `${KEYSTORE_LABELS[keystore]} item ${SERVICE}`, { replaceKind: true, now })
  return { publicKey: key.publicKey, keystore, ...(expiresAt ? { expiresAt } : {}) }
}

/** Reads the enrolled key back, refusing an expired enrollment or a keychain seed that does not match the meta file. */
export function loadOsKeychainKey(home: string, env: NodeJS.ProcessEnv, now = Date.now()): SigningKey {
  const metaPath = keychainMetaPath(home)
  const meta = readKeychainMeta(home)
  if (!meta) throw new SignerError('not_enrolled', 'no OS-keychain signer is enrolled: run `svc signer enroll --tier os-keychain [--ttl <duration>]`')
  if (meta.expires_at !== undefined && now >= Date.parse(meta.expires_at)) {
    throw new SignerError('enrollment_expired', `the OS-keychain enrollment expired at ${meta.expires_at}: re-enroll with \`svc signer enroll --tier os-keychain\``)
  }
  // Meta files written before there was a choice of keystore were the macOS keychain's.
  const seed = Buffer.from(readSeed({ keystore: meta.keystore ?? 'macos-keychain', ...(meta.key_serial ? { key_serial: meta.key_serial } : {}) }, env), 'hex')
  if (seed.length !== 32) throw new SignerError('keychain_corrupt', `keychain item ${meta.service} does not hold a 32-byte seed`)
  const key = signingKeyFromSeed(seed)
  if (key.publicKey.toString('base64') !== meta.public_key) {
    throw new SignerError('keychain_mismatch', `keychain item ${meta.service} no longer matches ${metaPath}: re-enroll with \`svc signer enroll --tier os-keychain\``)
  }
  return key
}

/** The enrollment's meta file, or undefined when none is enrolled. */
export function readKeychainMeta(home: string): KeychainMeta | undefined {
  const path = keychainMetaPath(home)
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as KeychainMeta) : undefined
}

/** Forgets the enrollment: the seed leaves its keystore and the meta file goes (`svc init --undo`). */
export function removeOsKeychain(home: string, env: NodeJS.ProcessEnv): void {
  const meta = readKeychainMeta(home)
  if (!meta) return
  removeSeed({ keystore: meta.keystore ?? 'macos-keychain', ...(meta.key_serial ? { key_serial: meta.key_serial } : {}) }, env)
  rmSync(keychainMetaPath(home), { force: true })
}
