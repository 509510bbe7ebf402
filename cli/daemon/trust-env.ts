/**
 * Host keys handed to a daemon through its environment: `SVC_TRUSTED_HOST_KEYS="software:<base64> totp:<base64>"`,
 * the line `svc signer export-trust` prints on the host. A container's daemon cannot read the host's
 * `$SVC_HOME` (and must not: the long-lived keys live there), so `docker run -e SVC_TRUSTED_HOST_KEYS=…`
 * is how a host `svc` becomes able to mint sessions on it without editing files. Public keys only; a key the
 * daemon's trust file already lists, active or retired, is left as it is (a retirement is never undone).
 */
import { readTrustedHostKeys, trustHostKey } from '../../core/index.ts'
import type { SignerKind } from '../../core/types.ts'

const KINDS: readonly SignerKind[] = ['software', 'totp', 'os_keychain', 'hardware_key']

export interface TrustedEntry {
  readonly signer: SignerKind
  readonly publicKey: Buffer
}

/** Parses the variable; throws naming the bad entry (the daemon must not start half-trusting). */
export function parseTrustedHostKeys(value: string): TrustedEntry[] {
  return value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((entry) => {
      const [signer, key, extra] = entry.split(':')
      const kind = signer?.replace('-', '_') as SignerKind
      if (extra !== undefined || !KINDS.includes(kind) || !key)
        throw new Error(`SVC_TRUSTED_HOST_KEYS: "${entry}" is not <signer>:<base64 public key> (signers: software, totp, os-keychain)`)
      const publicKey = Buffer.from(key, 'base64')
      if (publicKey.length !== 32 || publicKey.toString('base64') !== key) throw new Error(`SVC_TRUSTED_HOST_KEYS: "${entry}" does not carry a base64 32-byte Ed25519 public key`)
      return { signer: kind, publicKey }
    })
}

/** Adds the variable's keys the trust file in `home` does not list yet; returns how many were added. */
export function trustKeysFromEnv(home: string, env: NodeJS.ProcessEnv): number {
  const value = env.SVC_TRUSTED_HOST_KEYS
  if (!value) return 0
  const entries = parseTrustedHostKeys(value)
  const known = new Set(readTrustedHostKeys(home).map((k) => k.public_key))
  let added = 0
  for (const e of entries) {
    if (known.has(e.publicKey.toString('base64'))) continue
    trustHostKey(home, e.publicKey, e.signer, 'from SVC_TRUSTED_HOST_KEYS')
    added++
  }
  return added
}

/** The variable's value for the host's active keys (what `svc signer export-trust` prints). */
export function trustLine(home: string): string {
  return readTrustedHostKeys(home)
    .filter((k) => k.retired_at_ms === undefined)
    .map((k) => `${k.signer.replace('_', '-')}:${k.public_key}`)
    .join(' ')
}
