/**
 * The OS keystores the os-keychain tier can keep its Ed25519 seed in, each through the platform's own
 * command-line tool (no native module):
 * - `macos-keychain`: the login keychain, `security add-generic-password` / `find-generic-password -w`;
 * - `secret-service`: a desktop keyring (GNOME Keyring, KWallet) over D-Bus, `secret-tool store` / `lookup`
 *   (Debian: libsecret-tools). It persists like the macOS keychain and is unlocked at login;
 * - `kernel-keyring`: the Linux kernel's user keyring (`keyctl`, Debian: keyutils) for headless hosts. The seed
 *   lives in kernel memory only, never on disk: it is gone at reboot, or when the user's last process ends, or at
 *   the enrollment's --ttl (a kernel timeout). That is the "unlock once per login": enroll again after it.
 * `available` answers why a keystore cannot be used here (undefined when it can).
 */
import { spawnSync } from 'node:child_process'
import { SignerError } from './signer-error.ts'

export const KEYSTORES = ['macos-keychain', 'secret-service', 'kernel-keyring'] as const
export type KeystoreId = (typeof KEYSTORES)[number]

export const SERVICE = 'svc.host-signing-key'
export const ACCOUNT = 'svc'
const KERNEL_DESCRIPTION = 'svc:host-signing-key'

/** Where a stored seed is: the kernel keyring's key serial; the others find it by service and account. */
export interface StoredSeed {
  readonly keystore: KeystoreId
  readonly key_serial?: string
}

interface Run {
  readonly ok: boolean
  readonly out: string
  readonly err: string
}

function run(tool: string, args: readonly string[], env: NodeJS.ProcessEnv, input?: string): Run {
  const r = spawnSync(tool, args, { env, encoding: 'utf8', timeout: 120_000, ...(input === undefined ? { stdio: ['ignore', 'pipe', 'pipe'] } : { input }) })
  if (r.error) return { ok: false, out: '', err: (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? `\`${tool}\` is not installed` : r.error.message }
  return { ok: r.status === 0, out: r.stdout ?? '', err: (r.stderr || '').trim().split('\n')[0] || `exit status ${r.status}` }
}

function must(r: Run, what: string): string {
  if (!r.ok) throw new SignerError('keychain_failed', `${what} failed: ${r.err}`)
  return r.out
}

export const KEYSTORE_LABELS: Readonly<Record<KeystoreId, string>> = {
  'macos-keychain': 'macOS login keychain',
  'secret-service': 'Secret Service (desktop keyring over D-Bus)',
  'kernel-keyring': 'Linux kernel user keyring (until reboot, logout of every session, or --ttl)',
}

/** Why `id` cannot be used on this host, or undefined when it can. */
export function keystoreUnavailable(id: KeystoreId, env: NodeJS.ProcessEnv): string | undefined {
  const platform = env.SVC_KEYCHAIN_PLATFORM ?? process.platform
  if (id === 'macos-keychain') return platform === 'darwin' ? undefined : `the macOS login keychain exists on macOS only (this is ${platform})`
  if (platform !== 'linux') return `${id} is a Linux keystore (this is ${platform})`
  if (id === 'kernel-keyring') {
    const r = run('keyctl', ['show', '@u'], env)
    return r.ok ? undefined : `the kernel keyring is not usable: ${r.err}${/not installed/.test(r.err) ? ' (Debian/Ubuntu: apt-get install keyutils)' : ''}`
  }
  if (!env.DBUS_SESSION_BUS_ADDRESS) return 'no desktop session bus (DBUS_SESSION_BUS_ADDRESS is unset), so no Secret Service keyring runs here'
  // A lookup of a name nobody stored: exit 1 with nothing on stderr means the keyring answered.
  const probe = run('secret-tool', ['lookup', 'service', `${SERVICE}.probe`, 'account', ACCOUNT], env)
  if (probe.ok || (probe.err.startsWith('exit status') && !/not installed/.test(probe.err))) return undefined
  return `the Secret Service does not answer: ${probe.err}${/not installed/.test(probe.err) ? ' (Debian/Ubuntu: apt-get install libsecret-tools)' : ''}`
}

/** The keystore to use: the one named, else the best this host has (macOS keychain; Secret Service; kernel keyring). */
export function chooseKeystore(env: NodeJS.ProcessEnv, named?: string): KeystoreId {
  if (named !== undefined) {
    if (!(KEYSTORES as readonly string[]).includes(named)) throw new SignerError('bad_keystore', `unknown keystore "${named}" (expected one of: ${KEYSTORES.join(', ')})`)
    const why = keystoreUnavailable(named as KeystoreId, env)
    if (why) throw new SignerError('keychain_unavailable', `--keystore ${named}: ${why}`)
    return named as KeystoreId
  }
  const reasons: string[] = []
  for (const id of KEYSTORES) {
    const why = keystoreUnavailable(id, env)
    if (!why) return id
    reasons.push(`${id}: ${why}`)
  }
  const platform = env.SVC_KEYCHAIN_PLATFORM ?? process.platform
  throw new SignerError(
    'unsupported_platform',
    `--tier os-keychain needs an OS keystore, and none is usable on ${platform} (${reasons.join('; ')}). Use --tier totp (or --tier software for dev/CI).`,
  )
}

/** Stores `seedHex`, replacing an earlier svc seed in the same keystore. */
export function storeSeed(id: KeystoreId, seedHex: string, env: NodeJS.ProcessEnv, ttlMs?: number): StoredSeed {
  if (id === 'macos-keychain') {
    must(
      run('security', ['add-generic-password', '-U', '-a', ACCOUNT, '-s', SERVICE, '-l', 'svc host signing key (ed25519 seed)', '-w', seedHex], env),
      '`security add-generic-password`',
    )
    return { keystore: id }
  }
  if (id === 'secret-service') {
    // The secret on stdin, never in the process list.
    must(run('secret-tool', ['store', '--label=svc host signing key (ed25519 seed)', 'service', SERVICE, 'account', ACCOUNT], env, seedHex), '`secret-tool store`')
    return { keystore: id }
  }
  // `padd` on the same description updates the key in place; the data comes on stdin. SVC_KEYRING (tests) names
  // another keyring than the user keyring, so a test never replaces the real user's key.
  const serial = must(run('keyctl', ['padd', 'user', KERNEL_DESCRIPTION, env.SVC_KEYRING || '@u'], env, seedHex), '`keyctl padd`').trim()
  // Possessor and the same user may read it (a service started outside this login session is the same user, not a possessor).
  must(run('keyctl', ['setperm', serial, '0x3f3f0000'], env), '`keyctl setperm`')
  if (ttlMs !== undefined) must(run('keyctl', ['timeout', serial, String(Math.max(1, Math.ceil(ttlMs / 1000)))], env), '`keyctl timeout`')
  return { keystore: id, key_serial: serial }
}

/** Reads the seed back (hex text), or a SignerError saying how to get it back. */
export function readSeed(stored: StoredSeed, env: NodeJS.ProcessEnv): string {
  if (stored.keystore === 'macos-keychain')
    return must(run('security', ['find-generic-password', '-a', ACCOUNT, '-s', SERVICE, '-w'], env), '`security find-generic-password`').trim()
  if (stored.keystore === 'secret-service') {
    const r = run('secret-tool', ['lookup', 'service', SERVICE, 'account', ACCOUNT], env)
    if (!r.ok)
      throw new SignerError(
        'keychain_failed',
        `the Secret Service did not give the svc key back (${r.err}): is the desktop keyring unlocked? Else re-enroll: \`svc signer enroll --tier os-keychain\``,
      )
    return r.out.trim()
  }
  const r = run('keyctl', ['pipe', stored.key_serial ?? ''], env)
  if (!r.ok)
    throw new SignerError(
      'keychain_gone',
      `the kernel keyring no longer holds the svc key (${r.err}): it lives in the user keyring until reboot, the end of the user's last session, or its --ttl. Unlock again with \`svc signer enroll --tier os-keychain\` (or re-run \`svc init\`)`,
    )
  return r.out.trim()
}

/** Removes svc's seed from the keystore (best effort; `svc init --undo`). */
export function removeSeed(stored: StoredSeed, env: NodeJS.ProcessEnv): void {
  if (stored.keystore === 'macos-keychain') run('security', ['delete-generic-password', '-a', ACCOUNT, '-s', SERVICE], env)
  else if (stored.keystore === 'secret-service') run('secret-tool', ['clear', 'service', SERVICE, 'account', ACCOUNT], env)
  else if (stored.key_serial) run('keyctl', ['unlink', stored.key_serial, env.SVC_KEYRING || '@u'], env)
}
