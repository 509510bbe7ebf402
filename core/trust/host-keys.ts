/**
 * The host public keys the daemon trusts to certify sessions, kept in `$SVC_HOME/trusted-host-keys.json`.
 * The CLI adds its key there when it creates or enrolls one (same `$SVC_HOME` as the daemon, or a bind
 * mount in the container); re-enrolling a kind retires the previous key of that kind, which then certifies
 * no new session but still verifies old ledgers. Each key is trusted for exactly one signer kind, so a
 * software key can never mint a session that claims to be `os_keychain`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SignerKind } from '../types.ts'
import { writePrivateFile } from '../atomic-file.ts'
import { keyId } from './session-cert.ts'

/** File name, in `$SVC_HOME`, of the host keys trusted to certify sessions. */
export const TRUSTED_HOST_KEYS_FILE = 'trusted-host-keys.json'

export interface TrustedKeyRecord {
  readonly public_key: string
  readonly signer: SignerKind
  readonly kid: string
  readonly added_at_ms: number
  readonly retired_at_ms?: number
  readonly label: string
}

interface TrustFile {
  readonly version: 1
  readonly keys: readonly TrustedKeyRecord[]
}

/** Path of the trust file under a home directory. */
export function trustFilePath(home: string): string {
  return join(home, TRUSTED_HOST_KEYS_FILE)
}

/** Reads every trusted key (active and retired); an absent file means none. Throws on a malformed file. */
export function readTrustedHostKeys(home: string): TrustedKeyRecord[] {
  return readTrustFile(trustFilePath(home))
}

/** Reads a trust file at an explicit path (e.g. one copied from another machine for `svc ledger verify`). */
export function readTrustFile(path: string): TrustedKeyRecord[] {
  if (!existsSync(path)) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (cause) {
    throw new Error(`${path} is not valid JSON`, { cause })
  }
  const keys = (parsed as Partial<TrustFile>)?.keys
  if (!Array.isArray(keys)) throw new Error(`${path} has no "keys" array`)
  return keys.filter(
    (k): k is TrustedKeyRecord =>
      typeof k === 'object' && k !== null && typeof k.public_key === 'string' && typeof k.signer === 'string' && Buffer.from(k.public_key, 'base64').length === 32,
  )
}

/** The active (not retired) key record for a public key, if trusted. */
export function findActiveHostKey(home: string, publicKey: string): TrustedKeyRecord | undefined {
  return readTrustedHostKeys(home).find((k) => k.public_key === publicKey && k.retired_at_ms === undefined)
}

/** Trusts `publicKey` for `signer`, retiring other active keys of the same kind when `replaceKind` is set. */
export function trustHostKey(home: string, publicKey: Uint8Array, signer: SignerKind, label: string, options: { replaceKind?: boolean; now?: number } = {}): void {
  const now = options.now ?? Date.now()
  const encoded = Buffer.from(publicKey).toString('base64')
  const existing = readTrustedHostKeys(home)
  if (existing.some((k) => k.public_key === encoded && k.signer === signer && k.retired_at_ms === undefined)) return
  const keys = existing.map((k) => (options.replaceKind && k.signer === signer && k.retired_at_ms === undefined ? { ...k, retired_at_ms: now } : k))
  keys.push({ public_key: encoded, signer, kid: keyId(publicKey), added_at_ms: now, label })
  writePrivateFile(trustFilePath(home), `${JSON.stringify({ version: 1, keys } satisfies TrustFile, null, 2)}\n`)
}
