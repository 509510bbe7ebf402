/**
 * Operator bearer tokens: random, held in memory only (a restart logs everyone out), compared by hash.
 */
import { randomBytes } from 'node:crypto'
import { sha256 } from '../../core/hash.ts'

/** How long an operator bearer token stays valid after login. */
export const TOKEN_TTL_MS = 12 * 3600_000

/** Issued operator tokens by SHA-256 digest (the token itself is never kept); expired ones are dropped when met. */
export class TokenStore {
  readonly #tokens = new Map<string, number>()

  issue(now: number): { token: string; expiresAt: number } {
    const token = `svc_${randomBytes(32).toString('base64url')}`
    const expiresAt = now + TOKEN_TTL_MS
    this.#tokens.set(sha256(token), expiresAt)
    return { token, expiresAt }
  }

  /** Ends a token before its time (a dashboard logout). */
  revoke(token: string): void {
    this.#tokens.delete(sha256(token))
  }

  valid(token: string, now: number): boolean {
    const key = sha256(token)
    const expiresAt = this.#tokens.get(key)
    if (expiresAt === undefined) return false
    if (now >= expiresAt) {
      this.#tokens.delete(key)
      return false
    }
    return true
  }
}
