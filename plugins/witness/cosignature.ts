/**
 * C2SP tlog-cosignature (Ed25519 form, signature type 0x04), checked against c2sp.org/tlog-cosignature:
 * key ID = SHA-256(<name> ‖ "\n" ‖ 0x04 ‖ 32-byte public key)[:4]; the signature line is
 * `— <name> base64(keyID ‖ timestamped_signature)` with timestamped_signature = u64 BE POSIX timestamp ‖ 64-byte
 * Ed25519 signature over "cosignature/v1\ntime <timestamp>\n" followed by the whole checkpoint body (signature
 * lines excluded). Witness keys are given as vkeys `<name>+<hex key ID>+base64(0x04 ‖ public key)` (signed-note
 * verifier keys). ML-DSA-44 (0x06) cosignatures are not verified here; lines of unknown keys are ignored.
 */
import { createHash } from 'node:crypto'
import { signNative, verifyNative, type SigningKey } from '../../core/index.ts'

const COSIGNATURE_V1 = 0x04

/** A witness as configured: its key name, Ed25519 cosigning key and submission URL. */
export interface WitnessKey {
  readonly name: string
  readonly publicKey: Buffer
  readonly keyId: Buffer
}

export function cosignatureKeyId(name: string, publicKey: Uint8Array): Buffer {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`, 'utf8'), Buffer.from([COSIGNATURE_V1]), publicKey]))
    .digest()
    .subarray(0, 4)
}

/** The vkey of an Ed25519 cosigner. */
export function cosignerVkey(name: string, publicKey: Uint8Array): string {
  return `${name}+${cosignatureKeyId(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([COSIGNATURE_V1]), publicKey]).toString('base64')}`
}

/** Parses a cosigner vkey; throws naming what is wrong (a 0x06 ML-DSA key is refused: not supported here). */
export function parseWitnessVkey(vkey: string): WitnessKey {
  // The base64 key may itself contain '+': split at the first two only.
  const first = vkey.indexOf('+')
  const second = vkey.indexOf('+', first + 1)
  if (first <= 0 || second < 0) throw new Error(`witness key "${vkey}" is not <name>+<keyid>+<base64 key>`)
  const parts = [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)]
  const raw = Buffer.from(parts[2]!, 'base64')
  if (raw[0] !== COSIGNATURE_V1 || raw.length !== 33) throw new Error(`witness key "${vkey}" is not an Ed25519 cosignature key (type 0x04)`)
  const key = { name: parts[0]!, publicKey: raw.subarray(1), keyId: Buffer.from(parts[1]!, 'hex') }
  if (!cosignatureKeyId(key.name, key.publicKey).equals(key.keyId)) throw new Error(`witness key "${vkey}" has the wrong key ID`)
  return key
}

function message(body: string, timestamp: bigint): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${body}`, 'utf8')
}

/** Signs a cosignature line (what a witness returns). */
export function cosign(name: string, key: SigningKey, body: string, timestamp: bigint): string {
  const ts = Buffer.alloc(8)
  ts.writeBigUInt64BE(timestamp)
  const sig = signNative(key, message(body, timestamp))
  return `\u2014 ${name} ${Buffer.concat([cosignatureKeyId(name, key.publicKey), ts, sig]).toString('base64')}`
}

/** Verifies one signature line as a cosignature by `witness` over `body`; returns its timestamp or a reason. */
export function verifyCosignature(line: string, witness: WitnessKey, body: string, nowSeconds: number): { ok: true; timestamp: number } | { ok: false; reason: string } {
  const m = /^\u2014 (\S+) (\S+)$/u.exec(line)
  if (!m) return { ok: false, reason: 'not a signature line' }
  const blob = Buffer.from(m[2]!, 'base64')
  if (m[1] !== witness.name || blob.length !== 4 + 8 + 64 || !blob.subarray(0, 4).equals(witness.keyId)) return { ok: false, reason: `not a cosignature by ${witness.name}` }
  const timestamp = blob.readBigUInt64BE(4)
  if (timestamp > BigInt(Math.floor(nowSeconds) + 300)) return { ok: false, reason: `cosignature by ${witness.name} is dated in the future` }
  if (!verifyNative(blob.subarray(12), message(body, timestamp), witness.publicKey)) return { ok: false, reason: `cosignature by ${witness.name} does not verify` }
  return { ok: true, timestamp: Number(timestamp) }
}
