/**
 * The host's long-lived log key: the Ed25519 key a witness is configured with for this ledger's origin
 * (`witnessctl add-key`, omniwitness `additional_logs`). Session keys sign checkpoints too, but they live for
 * hours and no witness can be told about them. The key name is the origin (tlog-checkpoint: the checkpoint
 * signature's key name matches the origin line). Kept at `$SVC_HOME/log-key.json`, mode 0600: its secrecy
 * from the developer is not what protects the log — witnesses refuse to cosign a rewritten history.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { newSeed, noteVerifierKey, signingKeyFromSeed, signNote, type SigningKey } from '../../core/index.ts'
import { writePrivateFile } from '../../core/index.ts'

export const LOG_KEY_FILE = 'log-key.json'

export interface LogKey {
  readonly key: SigningKey
  /** The C2SP verifier key to enrol with witnesses: `<origin>+<keyid>+base64(0x01 ‖ pub)`. */
  readonly vkey: string
}

/** Loads the log key of `origin`, creating it on first use. A key file of another origin is refused. */
export function loadLogKey(home: string, origin: string): LogKey {
  const path = join(home, LOG_KEY_FILE)
  if (!existsSync(path)) writePrivateFile(path, `${JSON.stringify({ origin, seed: newSeed().toString('base64') })}\n`)
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { origin?: string; seed?: string }
  if (doc.origin !== origin) throw new Error(`${path} belongs to ledger ${doc.origin}, not ${origin}; move it away to create a key for the new ledger`)
  const key = signingKeyFromSeed(Buffer.from(doc.seed ?? '', 'base64'))
  return { key, vkey: noteVerifierKey(origin, key.publicKey) }
}

/** Adds the log key's signature line to a signed checkpoint note (C2SP notes may carry several signatures). */
export function addLogSignature(note: string, origin: string, log: LogKey): string {
  const split = note.lastIndexOf('\n\n')
  const body = note.slice(0, split + 1)
  const line = signNote(body, origin, log.key).slice(body.length + 1)
  return `${note}${line}`
}
