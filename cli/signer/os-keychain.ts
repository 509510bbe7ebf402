/**
 * The OS-keychain tier (macOS only): enrollment stores a fresh Ed25519 seed in the login keychain through
 * the `security` command-line tool (`-U` overwrites an earlier entry) and writes
 * `$SVC_HOME/os-keychain.meta.json` (public key, optional expiry). Each mint reads the seed back with
 * `security find-generic-password -w`, after the CLI has enforced the expiry. Other platforms get a clear
 * error. `SVC_KEYCHAIN_PLATFORM=darwin` exists only so tests can drive the macOS path with a fake `security`.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { keyId, newSeed, signingKeyFromSeed, trustHostKey, writePrivateFile, type SigningKey } from '../../core/index.ts'
import { SignerError } from './signer-error.ts'

const SERVICE = 'svc.host-signing-key'
const ACCOUNT = 'svc'

interface KeychainMeta {
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

function assertMacOs(env: NodeJS.ProcessEnv): void {
  const platform = env.SVC_KEYCHAIN_PLATFORM ?? process.platform
  if (platform !== 'darwin') {
    throw new SignerError(
      'unsupported_platform',
      `--tier os-keychain needs the macOS login keychain; keystores of ${platform} are not implemented. Use --tier totp (or --tier software for dev/CI).`,
    )
  }
}

function runSecurity(args: readonly string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync('security', args, { env, encoding: 'utf8', timeout: 120_000 })
  if (result.error) throw new SignerError('keychain_unavailable', `could not run the macOS \`security\` tool: ${result.error.message}`)
  if (result.status !== 0) {
    const detail = (result.stderr || '').trim().split('\n')[0] || `exit status ${result.status}`
    throw new SignerError('keychain_failed', `\`security ${args[0]}\` failed: ${detail}`)
  }
  return result.stdout
}

/** Stores a fresh seed in the keychain, writes the meta file, and trusts the key for `os_keychain`. */
export function enrollOsKeychain(home: string, env: NodeJS.ProcessEnv, options: { ttlMs?: number; now?: number } = {}): { publicKey: Buffer; expiresAt?: string } {
  assertMacOs(env)
  const now = options.now ?? Date.now()
  const seed = newSeed()
  const key = signingKeyFromSeed(seed)
  runSecurity(['add-generic-password', '-U', '-a', ACCOUNT, '-s', SERVICE, '-l', 'svc host signing key (ed25519 seed)', '-w', seed.toString('hex')], env)
  const expiresAt = options.ttlMs === undefined ? undefined : new Date(now + options.ttlMs).toISOString()
  const meta: KeychainMeta = {
    v: 1,
    public_key: key.publicKey.toString('base64'),
    kid: keyId(key.publicKey),
    service: SERVICE,
    account: ACCOUNT,
    enrolled_at: new Date(now).toISOString(),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  }
  writePrivateFile(keychainMetaPath(home), `${JSON.stringify(meta, null, 2)}\n`)
  trustHostKey(home, key.publicKey, 'os_keychain', `macOS keychain item ${SERVICE}`, { replaceKind: true, now })
  return { publicKey: key.publicKey, ...(expiresAt ? { expiresAt } : {}) }
}

/** Reads the enrolled key back, refusing an expired enrollment or a keychain seed that does not match the meta file. */
export function loadOsKeychainKey(home: string, env: NodeJS.ProcessEnv, now = Date.now()): SigningKey {
  assertMacOs(env)
  const metaPath = keychainMetaPath(home)
  if (!existsSync(metaPath)) throw new SignerError('not_enrolled', 'no OS-keychain signer is enrolled: run `svc signer enroll --tier os-keychain [--ttl <duration>]`')
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as KeychainMeta
  if (meta.expires_at !== undefined && now >= Date.parse(meta.expires_at)) {
    throw new SignerError('enrollment_expired', `the OS-keychain enrollment expired at ${meta.expires_at}: re-enroll with \`svc signer enroll --tier os-keychain\``)
  }
  const seed = Buffer.from(runSecurity(['find-generic-password', '-a', meta.account, '-s', meta.service, '-w'], env).trim(), 'hex')
  if (seed.length !== 32) throw new SignerError('keychain_corrupt', `keychain item ${meta.service} does not hold a 32-byte seed`)
  const key = signingKeyFromSeed(seed)
  if (key.publicKey.toString('base64') !== meta.public_key) {
    throw new SignerError('keychain_mismatch', `keychain item ${meta.service} no longer matches ${metaPath}: re-enroll with \`svc signer enroll --tier os-keychain\``)
  }
  return key
}
