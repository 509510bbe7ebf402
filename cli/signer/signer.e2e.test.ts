import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { generateSync } from 'otplib'
import { tempDir } from '../../testing/ledger-fixtures.ts'
import { verifyNative } from '../../core/ledger/ed25519.ts'
import { readTrustedHostKeys } from '../../core/trust/host-keys.ts'
import { checkSessionCertificate } from '../../core/trust/session-cert.ts'
import { unlockHostKey } from './long-lived-key.ts'
import { mintSession } from './mint.ts'
import { enrollOsKeychain, keychainMetaPath } from './os-keychain.ts'
import { softwareKeyPath } from './software-key.ts'
import { enrollTotp, totpFilePath } from './totp-signer.ts'

let tmp: ReturnType<typeof tempDir>
let home: string
beforeEach(() => {
  tmp = tempDir('svc-signer-')
  home = join(tmp.dir, 'home')
})
afterEach(() => tmp.cleanup())

const secretOf = (uri: string) => new URL(uri).searchParams.get('secret')!

describe('software signer', () => {
  it('is refused without SVC_ALLOW_SOFTWARE_SIGNER=1 and creates nothing', () => {
    expect(() => unlockHostKey('software', { home, env: {} })).toThrow(/SVC_ALLOW_SOFTWARE_SIGNER=1/)
    expect(() => unlockHostKey('software', { home, env: { SVC_ALLOW_SOFTWARE_SIGNER: 'true' } })).toThrow(/refused/)
    expect(existsSync(softwareKeyPath(home))).toBe(false)
  })

  it('creates the key lazily with 0600/0700, trusts it for software, and reuses it', () => {
    const env = { SVC_ALLOW_SOFTWARE_SIGNER: '1' }
    const first = unlockHostKey('software', { home, env })
    expect(statSync(softwareKeyPath(home)).mode & 0o777).toBe(0o600)
    expect(statSync(join(home, 'signer')).mode & 0o777).toBe(0o700)
    expect(unlockHostKey('software', { home, env }).key!.publicKey).toEqual(first.key!.publicKey)
    expect(readTrustedHostKeys(home)).toMatchObject([{ public_key: first.key!.publicKey.toString('base64'), signer: 'software' }])
    const body = mintSession(first, { userId: 'alice', groups: ['dev'] })
    expect(checkSessionCertificate(body.certificate, verifyNative)).toBeUndefined()
    expect(body.certificate.bundle).toMatchObject({ signer: 'software', user_id: 'alice', groups: ['dev'] })
    chmodSync(softwareKeyPath(home), 0o644)
    expect(() => unlockHostKey('software', { home, env })).toThrow(/mode 644.*chmod 600/)
  })
})

describe('TOTP signer', () => {
  const passphrase = 'correct horse battery'
  // Five unseals below: a cheap scrypt cost (recorded in the blob, read back by unseal) instead of 128 MiB each.
  const sealCost = { N: 2 ** 10, r: 8, p: 1 }
  const sealedN = () => (JSON.parse(readFileSync(totpFilePath(home), 'utf8')) as { sealed: { N: number } }).sealed.N

  it('enrolls with an otpauth URI, mints with a good code, and refuses replay, wrong code, wrong passphrase', () => {
    const { uri, publicKey } = enrollTotp(home, passphrase, { sealCost })
    expect(sealedN()).toBe(sealCost.N)
    expect(uri).toMatch(/^otpauth:\/\/totp\/svc:svc%40.+\?secret=[A-Z2-7]+&issuer=svc$/)
    expect(statSync(totpFilePath(home)).mode & 0o777).toBe(0o600)
    expect(readFileSync(totpFilePath(home), 'utf8')).not.toContain(secretOf(uri))
    const now = Date.now()
    const code = generateSync({ secret: secretOf(uri), epoch: Math.floor(now / 1000) })
    expect(() => unlockHostKey('totp', { home, env: {}, code, passphrase: 'wrong passphrase', now })).toThrow(/wrong passphrase/)
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
    expect(() => unlockHostKey('totp', { home, env: {}, code: wrong, passphrase, now })).toThrow(/wrong or already-used TOTP code/)
    expect(() => unlockHostKey('totp', { home, env: {}, code: '12345', passphrase, now })).toThrow(/exactly 6 digits/)
    const host = unlockHostKey('totp', { home, env: {}, code, passphrase, now })
    expect(host.key!.publicKey).toEqual(publicKey)
    expect(() => unlockHostKey('totp', { home, env: {}, code, passphrase, now })).toThrow(/already-used/)
  })

  it('refuses an expired enrollment before asking for anything', () => {
    const enrolledAt = Date.now() - 2 * 3_600_000
    const { uri } = enrollTotp(home, passphrase, { ttlMs: 3_600_000, now: enrolledAt })
    expect(sealedN(), 'svc seals at the full cost (128 MiB)').toBe(2 ** 17)
    const code = generateSync({ secret: secretOf(uri), epoch: Math.floor(Date.now() / 1000) })
    expect(() => unlockHostKey('totp', { home, env: {}, code, passphrase })).toThrow(/enrollment expired .* re-enroll/)
  })

  it('rejects a short passphrase at enrollment', () => {
    expect(() => enrollTotp(home, 'short')).toThrow(/at least 8 characters/)
    expect(existsSync(totpFilePath(home))).toBe(false)
  })
})

describe('OS-keychain signer (through the `security` command-line contract)', () => {
  let env: NodeJS.ProcessEnv
  beforeEach(() => {
    const bin = join(tmp.dir, 'bin')
    const store = join(tmp.dir, 'keychain')
    mkdirSync(bin)
    mkdirSync(store)
    copyFileSync(new URL('../../test/fixtures/fake-security.sh', import.meta.url), join(bin, 'security'))
    chmodSync(join(bin, 'security'), 0o755)
    env = { PATH: `${bin}:/usr/bin:/bin`, FAKE_KEYCHAIN_DIR: store, SVC_KEYCHAIN_PLATFORM: 'darwin' }
  })

  it('enrolls, writes the meta file, mints, and overwrites on re-enrollment', () => {
    const first = enrollOsKeychain(home, env)
    const meta = JSON.parse(readFileSync(keychainMetaPath(home), 'utf8')) as Record<string, unknown>
    expect(meta).toMatchObject({ public_key: first.publicKey.toString('base64') })
    expect(meta.expires_at).toBeUndefined()
    expect(unlockHostKey('os-keychain', { home, env }).key!.publicKey).toEqual(first.publicKey)
    const second = enrollOsKeychain(home, env)
    expect(second.publicKey).not.toEqual(first.publicKey)
    expect(unlockHostKey('os-keychain', { home, env }).key!.publicKey).toEqual(second.publicKey)
    const trusted = readTrustedHostKeys(home).filter((k) => k.signer === 'os_keychain')
    expect(trusted.map((k) => k.retired_at_ms === undefined)).toEqual([false, true])
  })

  it('enforces the TTL before each mint', () => {
    enrollOsKeychain(home, env, { ttlMs: 60_000, now: Date.now() - 120_000 })
    expect(() => unlockHostKey('os-keychain', { home, env })).toThrow(/enrollment expired .* re-enroll with `svc signer enroll --tier os-keychain`/)
  })

  it('detects a keychain item that no longer matches the meta file', () => {
    enrollOsKeychain(home, env)
    writeFileSync(join(env.FAKE_KEYCHAIN_DIR!, 'svc.host-signing-key.svc'), 'ab'.repeat(32))
    expect(() => unlockHostKey('os-keychain', { home, env })).toThrow(/no longer matches/)
  })

  it('gives a clear error on other platforms and when not enrolled', () => {
    expect(() => enrollOsKeychain(home, { ...env, SVC_KEYCHAIN_PLATFORM: 'win32' })).toThrow(
      /needs an OS keystore, and none is usable on win32 \(macos-keychain: .*\)\. Use --tier totp/,
    )
    expect(() => unlockHostKey('os-keychain', { home, env })).toThrow(/no OS-keychain signer is enrolled/)
  })
})

const keyctl = spawnSync('keyctl', ['show', '@u'], { encoding: 'utf8' })

// The real kernel keyring, in a keyring of the test's own (SVC_KEYRING) so the user's real key is never replaced.
describe.skipIf(keyctl.status !== 0)(`OS-keychain signer on Linux: the kernel keyring${keyctl.status !== 0 ? ' (skipped: keyctl from keyutils is not usable here)' : ''}`, () => {
  let ring: string
  let env: NodeJS.ProcessEnv
  beforeEach(() => {
    ring = spawnSync('keyctl', ['newring', `svc-test-${process.pid}`, '@u'], { encoding: 'utf8' }).stdout.trim()
    env = { PATH: '/usr/bin:/bin', SVC_KEYCHAIN_PLATFORM: 'linux', SVC_KEYRING: ring }
  })
  afterEach(() => void spawnSync('keyctl', ['unlink', ring, '@u']))

  it('is chosen without a desktop bus, mints os_keychain sessions, and says how to unlock again once the key is gone', () => {
    const enrolled = enrollOsKeychain(home, env)
    expect(enrolled.keystore).toBe('kernel-keyring')
    const meta = JSON.parse(readFileSync(keychainMetaPath(home), 'utf8')) as { keystore: string; key_serial: string }
    expect(meta.keystore).toBe('kernel-keyring')
    // The seed is in kernel memory, not in the meta file or anywhere under the home.
    expect(spawnSync('keyctl', ['pipe', meta.key_serial], { encoding: 'utf8' }).stdout).toMatch(/^[0-9a-f]{64}$/)
    const host = unlockHostKey('os-keychain', { home, env })
    expect(host).toMatchObject({ kind: 'os_keychain' })
    expect(host.key!.publicKey).toEqual(enrolled.publicKey)
    expect(readTrustedHostKeys(home).find((k) => k.signer === 'os_keychain')?.label).toMatch(/kernel user keyring/)
    spawnSync('keyctl', ['unlink', meta.key_serial, ring])
    expect(() => unlockHostKey('os-keychain', { home, env })).toThrow(/the kernel keyring no longer holds the svc key .* `svc signer enroll --tier os-keychain`/)
  })

  it('hands --ttl to the kernel as the key timeout', () => {
    enrollOsKeychain(home, env, { ttlMs: 3_600_000 })
    const { key_serial } = JSON.parse(readFileSync(keychainMetaPath(home), 'utf8')) as { key_serial: string }
    // `keyctl rdescribe` does not show the expiry; /proc/keys does (its 4th column: `1h`, then `59m`).
    const line = readFileSync('/proc/keys', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(Number(key_serial).toString(16).padStart(8, '0')))
    expect(line?.split(/\s+/)[3]).toMatch(/^(59m|1h)$/)
  })

  it('names why the Secret Service is not used when no desktop keyring runs', () => {
    expect(() => enrollOsKeychain(home, { ...env, DBUS_SESSION_BUS_ADDRESS: '' }, { keystore: 'secret-service' })).toThrow(/--keystore secret-service: no desktop session bus/)
  })
})

describe('hardware key', () => {
  it('is recognised and not yet implemented', () => {
    expect(() => unlockHostKey('hardware-key', { home, env: {} })).toThrow(/not yet implemented/)
  })
})
