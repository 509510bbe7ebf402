/**
 * C2SP signed notes and tlog checkpoints (the format of Go sumdb, Tessera and Rekor v2): text ending in a
 * newline, a blank line, then `— <name> base64(keyID[4] ‖ sig[64])` lines. Key ID = first 4 bytes of
 * SHA-256(name ‖ 0x0A ‖ 0x01 ‖ pubkey). A checkpoint's text is `origin\nsize\nbase64(root)\n`.
 */
import { hash } from 'node:crypto'
import { signNative, type SignatureVerifier, type SigningKey } from './ed25519.ts'

const DASH = '\u2014'

/** The 4-byte key ID of an Ed25519 note key. */
export function noteKeyId(name: string, publicKey: Uint8Array): Buffer {
  const digest = hash('sha256', Buffer.concat([Buffer.from(`${name}\n`, 'utf8'), Buffer.from([0x01]), publicKey]), 'buffer')
  return digest.subarray(0, 4)
}

/** The verifier key string `name+hex(keyid)+base64(0x01‖pub)`. */
export function noteVerifierKey(name: string, publicKey: Uint8Array): string {
  return `${name}+${noteKeyId(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([0x01]), publicKey]).toString('base64')}`
}

/** Parses a verifier key string; undefined when it is not a well-formed Ed25519 vkey. */
function parseVerifierKey(vkey: string): { name: string; keyId: Buffer; publicKey: Buffer } | undefined {
  const first = vkey.indexOf('+')
  const second = vkey.indexOf('+', first + 1)
  if (first <= 0 || second < 0) return undefined
  const name = vkey.slice(0, first)
  const keyId = Buffer.from(vkey.slice(first + 1, second), 'hex')
  const raw = Buffer.from(vkey.slice(second + 1), 'base64')
  if (keyId.length !== 4 || raw.length !== 33 || raw[0] !== 0x01) return undefined
  const publicKey = raw.subarray(1)
  return noteKeyId(name, publicKey).equals(keyId) ? { name, keyId, publicKey } : undefined
}

/** Signs `text` (must end in a newline) as a one-signature note. */
export function signNote(text: string, name: string, key: SigningKey): string {
  if (!text.endsWith('\n')) throw new TypeError('note text must end with a newline')
  const sig = signNative(key, Buffer.from(text, 'utf8'))
  return `${text}\n${DASH} ${name} ${Buffer.concat([noteKeyId(name, key.publicKey), sig]).toString('base64')}\n`
}

/** Checks a note against one known key: valid when a signature line of that key verifies. */
export function verifyNote(note: string, vkey: string, verify: SignatureVerifier): { ok: true; text: string } | { ok: false; reason: string } {
  const key = parseVerifierKey(vkey)
  if (!key) return { ok: false, reason: 'malformed verifier key' }
  const split = note.lastIndexOf('\n\n')
  if (split < 0 || !note.endsWith('\n')) return { ok: false, reason: 'note has no signature block' }
  const text = note.slice(0, split + 1)
  let known = false
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line)
    if (!m) return { ok: false, reason: 'malformed signature line' }
    const blob = Buffer.from(m[2]!, 'base64')
    if (m[1] !== key.name || blob.length !== 68 || !blob.subarray(0, 4).equals(key.keyId)) continue
    known = true
    if (!verify(blob.subarray(4), Buffer.from(text, 'utf8'), key.publicKey)) return { ok: false, reason: 'signature does not verify' }
  }
  return known ? { ok: true, text } : { ok: false, reason: 'no signature by the known key' }
}

/** The C2SP checkpoint text for a tree. */
export function checkpointText(origin: string, size: number, root: Uint8Array): string {
  return `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n`
}

/** Parses checkpoint text; undefined when malformed. */
export function parseCheckpoint(text: string): { origin: string; size: number; root: Buffer } | undefined {
  const m = /^([^\n]+)\n(0|[1-9][0-9]*)\n([A-Za-z0-9+/=]+)\n/.exec(text)
  if (!m) return undefined
  const size = Number(m[2])
  const root = Buffer.from(m[3]!, 'base64')
  if (!Number.isSafeInteger(size) || root.length !== 32) return undefined
  return { origin: m[1]!, size, root }
}
