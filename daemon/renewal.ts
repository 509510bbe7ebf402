/**
 * Sessions that renew themselves: the daemon side. A host-side renewer (`svc agent`) long-polls the daemon
 * for the current session and mints a new one whenever it is missing (a restarted daemon knows none), idle-
 * expired, or near its lifetime's end. This broker is the meeting point: it records that a renewer is
 * listening, wakes it the moment a hook finds no usable session, and lets that hook wait a bounded moment
 * for the renewal instead of denying a call only because the session had not been re-minted yet.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import type { SessionStore, SignerKind } from '../core/index.ts'

/** How long a hook waits for a renewal before deciding without a session (fail closed). */
export const DEFAULT_RENEWAL_GRACE_MS = 2_000
/** A renewer that has not polled for this long is presumed gone: hooks stop waiting for it. */
export const RENEWER_STALE_MS = 60_000
/** Right after start a renewer may not have reconnected yet: hooks wait for it during this window. */
export const STARTUP_WINDOW_MS = 15_000

export interface RenewerInfo {
  readonly tier: string
  readonly seenAt: number
  /** The renewer is asking a person for a code (interactive TOTP): hooks are told to type it there. */
  readonly waiting?: 'code'
}

type Wake = (why: 'demand' | 'changed') => void

export class SessionRenewal {
  /** Names this daemon process: a renewer that sees it change knows the daemon restarted. */
  readonly instanceId = `dmn_${randomBytes(8).toString('hex')}`
  readonly #startedAt: number
  readonly #graceMs: number
  readonly #memoPath?: string
  /** A renewer served this home before (its memo file exists): after a restart, hooks wait for it to return. */
  readonly #renewerBefore: boolean
  readonly #wakers = new Set<Wake>()
  #renewer?: RenewerInfo
  #demandedAt?: number

  /** `memoPath`: a file in `$SVC_HOME` remembering, across restarts, that a renewer serves this daemon. */
  constructor(opts: { now?: number; graceMs?: number; memoPath?: string } = {}) {
    this.#startedAt = opts.now ?? Date.now()
    this.#graceMs = opts.graceMs ?? DEFAULT_RENEWAL_GRACE_MS
    this.#memoPath = opts.memoPath
    this.#renewerBefore = opts.memoPath !== undefined && existsSync(opts.memoPath)
  }

  /** The renewer polled (now); its tier as it announced it. */
  seen(tier: string, now: number, waiting?: 'code'): void {
    const first = this.#renewer?.tier !== tier
    this.#renewer = { tier, seenAt: now, ...(waiting ? { waiting } : {}) }
    if (first && this.#memoPath) {
      try {
        writeFileSync(this.#memoPath, `${JSON.stringify({ tier, seen_at_ms: now })}\n`, { mode: 0o600 })
      } catch {
        // only an optimisation of the wait after a restart; a full disk must not fail the poll
      }
    }
  }

  /** The renewer last heard from, if any. */
  renewer(): RenewerInfo | undefined {
    return this.#renewer
  }

  /** True while a hook is waiting for a session (the renewer should mint at once). */
  demanded(): boolean {
    return this.#demandedAt !== undefined
  }

  /** Whether waiting can help: a renewer polled recently, or one served this home and the daemon just started. */
  expected(now: number): boolean {
    if (this.#renewer && now - this.#renewer.seenAt < RENEWER_STALE_MS) return true
    return this.#renewerBefore && now - this.#startedAt < STARTUP_WINDOW_MS
  }

  /** A session was created: wakes every waiter (renewers and hooks) and clears the demand. */
  changed(): void {
    this.#demandedAt = undefined
    this.#wake('changed')
  }

  /**
   * A hook found no usable session. Wakes the renewer and waits up to the grace period for a new session;
   * resolves true when one was created, false when none came (or no renewer can help: nobody is listening,
   * or the expired session is TOTP and no TOTP renewer, which may hold an unlock, is listening).
   */
  async awaitRenewal(now: number, expiredSigner?: SignerKind): Promise<boolean> {
    if ((expiredSigner === 'totp' && this.#renewer?.tier !== 'totp') || !this.expected(now)) return false
    this.#demandedAt ??= now
    const created = this.#next(this.#graceMs, 'changed')
    this.#wake('demand')
    return (await created) === 'changed'
  }

  /** For the renewer's long poll: resolves on a demand or a new session, or 'timeout' after `waitMs`. */
  wait(waitMs: number): Promise<'demand' | 'changed' | 'timeout'> {
    if (this.demanded()) return Promise.resolve('demand')
    return this.#next(waitMs)
  }

  #next(waitMs: number, only?: 'changed'): Promise<'demand' | 'changed' | 'timeout'> {
    return new Promise((resolve) => {
      const done = (why: 'demand' | 'changed' | 'timeout') => {
        clearTimeout(timer)
        this.#wakers.delete(wake)
        resolve(why)
      }
      const wake: Wake = (why) => {
        if (!only || why === only) done(why)
      }
      const timer = setTimeout(() => done('timeout'), Math.max(0, waitMs))
      timer.unref?.()
      this.#wakers.add(wake)
    })
  }

  /** The daemon is closing: every long poll answers now (hooks keep waiting for a session only). */
  release(): void {
    this.#wake('changed')
  }

  #wake(why: 'demand' | 'changed'): void {
    for (const wake of [...this.#wakers]) wake(why)
  }
}

/** The broker of each store the daemon serves: one per store, so each test's engine has its own. */
const renewals = new WeakMap<SessionStore, SessionRenewal>()

/** Gives the daemon's session store its renewal broker; the broker hears of every session change. */
export function attachRenewal(sessions: SessionStore, opts: ConstructorParameters<typeof SessionRenewal>[0] = {}): SessionRenewal {
  const renewal = new SessionRenewal(opts)
  sessions.onChange(() => renewal.changed())
  renewals.set(sessions, renewal)
  return renewal
}

/** The broker of `sessions` (a default one, attached on first use, for an app built without startDaemon). */
export function renewalOf(sessions: SessionStore): SessionRenewal {
  return renewals.get(sessions) ?? attachRenewal(sessions)
}
