/**
 * Operator bearer tokens: random, held in memory only (a restart logs everyone out), compared by hash.
 */
import { createHash, randomBytes } from 'node:crypto'

export const TOKEN_TTL_MS = 12 * 3600_000

export class TokenStore {
  readonly #tokens = new Map<string, number>()

  issue(now: number): { token: string; expiresAt: number } {
    const token = `svc_${randomBytes(32).toString('base64url')}`
    const expiresAt = now + TOKEN_TTL_MS
    this.#tokens.set(digest(token), expiresAt)
    return { token, expiresAt }
  }

  valid(token: string, now: number): boolean {
    const key = digest(token)
    const expiresAt = this.#tokens.get(key)
    if (expiresAt === undefined) return false
    if (now >= expiresAt) {
      this.#tokens.delete(key)
      return false
    }
    return true
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
