/**
 * Operator password (auth mode `password`): stored only as a scrypt hash in `$SVC_HOME/auth.json`,
 * written atomically with 0600 permissions.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writePrivateFile } from '../../core/atomic-file.ts'

/** Shortest operator password `setPassword` accepts. */
export const MIN_PASSWORD_LENGTH = 8
const SCRYPT = { N: 1 << 15, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 } as const

export interface StoredHash {
  readonly algorithm: 'scrypt'
  readonly N: number
  readonly r: number
  readonly p: number
  readonly salt: string
  readonly hash: string
}

/** Where the operator password hash lives: `<home>/auth.json`. */
function authFile(home: string): string {
  return join(home, 'auth.json')
}

/** The stored scrypt hash, or undefined when no password was set (or the file is unreadable). */
export function readPasswordHash(home: string): StoredHash | undefined {
  try {
    const parsed = JSON.parse(readFileSync(authFile(home), 'utf8')) as { password?: StoredHash }
    return parsed.password
  } catch {
    return undefined
  }
}

/** Hashes and stores a new operator password; throws an Error naming the rule it breaks. */
export function setPassword(home: string, password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`)
  const salt = randomBytes(16)
  const hash = scryptSync(password, salt, SCRYPT.keylen, SCRYPT)
  const stored: StoredHash = { algorithm: 'scrypt', N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, salt: salt.toString('base64'), hash: hash.toString('base64') }
  writePrivateFile(authFile(home), `${JSON.stringify({ password: stored }, null, 2)}\n`)
}

/**
 * True when `password` hashes to `stored` under its own scrypt parameters; compared in constant time.
 * The hash runs in libuv's thread pool (async crypto.scrypt): the event loop keeps answering meanwhile.
 */
export async function verifyPassword(stored: StoredHash, password: string): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64')
  const options: ScryptOptions = { N: stored.N, r: stored.r, p: stored.p, maxmem: SCRYPT.maxmem }
  const actual = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password, Buffer.from(stored.salt, 'base64'), expected.length, options, (err, key) => (err ? reject(err) : resolve(key))),
  )
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
