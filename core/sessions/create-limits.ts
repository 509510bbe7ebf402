/**
 * Limits on session creation, so a local process cannot flood the daemon with sessions (33,000 in 15 s
 * before): a token bucket over creations by callers without operator rights, and caps on live sessions,
 * tighter for unattested ones (which sign nothing). A refusal is a 429 problem with Retry-After.
 */
import { ApiProblem } from '../errors.ts'
import type { SignerKind } from '../types.ts'

export interface CreateLimits {
  /** Creations a burst may hold, and how many come back per second. */
  readonly burst: number
  readonly perSecond: number
  /** Live (active) sessions at most, and live unattested ones at most. */
  readonly maxActive: number
  readonly maxActiveUnattested: number
}

export const DEFAULT_CREATE_LIMITS: CreateLimits = { burst: 30, perSecond: 1, maxActive: 256, maxActiveUnattested: 16 }

function tooMany(detail: string, retryAfterS: number): ApiProblem {
  return new ApiProblem(429, 'too_many_requests', detail, { retry_after_s: retryAfterS })
}

/** The creation rate limiter and caps of one daemon. */
export class SessionCreateLimiter {
  readonly #limits: CreateLimits
  #tokens: number
  #at: number

  constructor(limits: CreateLimits = DEFAULT_CREATE_LIMITS, now = Date.now()) {
    this.#limits = limits
    this.#tokens = limits.burst
    this.#at = now
  }

  /** Takes one creation from the bucket; throws a 429 problem when it is empty. */
  take(now: number): void {
    this.#tokens = Math.min(this.#limits.burst, this.#tokens + ((now - this.#at) / 1000) * this.#limits.perSecond)
    this.#at = now
    if (this.#tokens < 1) {
      const wait = Math.ceil((1 - this.#tokens) / this.#limits.perSecond)
      throw tooMany(`too many sessions created: at most ${this.#limits.burst} at once and ${this.#limits.perSecond} a second after that; retry in ${wait}s`, wait)
    }
    this.#tokens -= 1
  }

  /** Throws a 429 problem when one more live session (of `signer`) would pass a cap. */
  checkCaps(signer: SignerKind, active: number, activeUnattested: number): void {
    if (active >= this.#limits.maxActive) throw tooMany(`${active} sessions are live, the daemon's maximum is ${this.#limits.maxActive}: let some expire or rotate them`, 60)
    if (signer === 'unattested' && activeUnattested >= this.#limits.maxActiveUnattested) {
      throw tooMany(`${activeUnattested} unattested sessions are live, the maximum is ${this.#limits.maxActiveUnattested}: unattested sessions sign nothing, use a signer tier`, 60)
    }
  }
}
