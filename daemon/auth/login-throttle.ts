/**
 * Password logins are slow on purpose (scrypt), so they are rationed: one attempt at a time per client,
 * a few free failures, then an exponential wait (429 + Retry-After) that a success resets; and at most
 * a few scrypt computations at once daemon-wide, run in libuv's thread pool (crypto.scrypt), never on
 * the event loop that answers hooks and checks.
 */
import { ApiProblem } from '../../core/errors.ts'

export interface ThrottleOptions {
  /** Failures a client may make before it has to wait. */
  readonly freeFailures: number
  /** The first wait, doubled for every further failure, up to `maxWaitMs`. */
  readonly baseWaitMs: number
  readonly maxWaitMs: number
  /** A client's failures are forgotten after this long without one. */
  readonly forgetMs: number
  /** Password hashes computed at once (the rest are refused, not queued). */
  readonly maxConcurrent: number
}

export const DEFAULT_THROTTLE: ThrottleOptions = { freeFailures: 3, baseWaitMs: 1000, maxWaitMs: 5 * 60_000, forgetMs: 15 * 60_000, maxConcurrent: 2 }

interface ClientState {
  failures: number
  lastFailureAt: number
  waitUntil: number
  inFlight: boolean
}

function tooMany(detail: string, waitMs: number): ApiProblem {
  return new ApiProblem(429, 'too_many_requests', detail, { retry_after_s: Math.max(1, Math.ceil(waitMs / 1000)) })
}

export class LoginThrottle {
  readonly #opts: ThrottleOptions
  readonly #clients = new Map<string, ClientState>()
  #running = 0

  constructor(opts: ThrottleOptions = DEFAULT_THROTTLE) {
    this.#opts = opts
  }

  /** Runs `verify` for `client` if it may try now; records the outcome. Throws a 429 problem otherwise. */
  async attempt(client: string, now: number, verify: () => Promise<boolean>): Promise<boolean> {
    const state = this.#state(client, now)
    if (now < state.waitUntil) throw tooMany(`too many failed logins from this client: wait ${Math.ceil((state.waitUntil - now) / 1000)}s`, state.waitUntil - now)
    if (state.inFlight) throw tooMany('a login from this client is already being checked: one at a time', 1000)
    if (this.#running >= this.#opts.maxConcurrent) throw tooMany('the daemon is checking other logins: retry shortly', 1000)
    state.inFlight = true
    this.#running++
    try {
      const ok = await verify()
      const at = Date.now()
      if (ok) {
        this.#clients.delete(client)
      } else {
        state.failures++
        state.lastFailureAt = at
        const over = state.failures - this.#opts.freeFailures
        if (over >= 0) state.waitUntil = at + Math.min(this.#opts.maxWaitMs, this.#opts.baseWaitMs * 2 ** over)
      }
      return ok
    } finally {
      state.inFlight = false
      this.#running--
    }
  }

  #state(client: string, now: number): ClientState {
    let state = this.#clients.get(client)
    if (state && !state.inFlight && now - state.lastFailureAt > this.#opts.forgetMs && now >= state.waitUntil) state = undefined
    if (!state) {
      // Bounded: a flood of distinct clients cannot grow the map without limit.
      if (this.#clients.size >= 10_000) this.#clients.clear()
      state = { failures: 0, lastFailureAt: 0, waitUntil: 0, inFlight: false }
      this.#clients.set(client, state)
    }
    return state
  }
}
