/**
 * Sessions the daemon knows. A session binds ledger entries to a signer kind; its secret (when it has
 * one) lives in memory only. Lifetime and idle expiry follow DESIGN.md §4 (12h, 30 min idle).
 */
import { randomUUID } from 'node:crypto'
import type { LeafSigner } from '../ledger/ledger.ts'
import type { SessionFacts, SignerKind } from '../types.ts'

export const DEFAULT_LIFETIME_MS = 12 * 3600_000
export const DEFAULT_IDLE_MS = 30 * 60_000

export interface Session extends SessionFacts {
  readonly createdAt: number
  readonly expiresAt: number
  lastSeenAt: number
  /** Signs leaves with the session key; absent for unattested sessions. */
  readonly sign?: LeafSigner
}

export type SessionStatus = { state: 'active'; session: Session } | { state: 'expired'; session: Session } | { state: 'unknown' }

export interface NewSession {
  readonly signer: SignerKind
  readonly userId?: string
  readonly groups?: readonly string[]
  readonly sign?: LeafSigner
  readonly lifetimeMs?: number
}

export class SessionStore {
  readonly #sessions = new Map<string, Session>()
  readonly #idleMs: number
  #currentId?: string

  constructor(opts: { idleMs?: number } = {}) {
    this.#idleMs = opts.idleMs ?? DEFAULT_IDLE_MS
  }

  create(input: NewSession, now: number): Session {
    const session: Session = {
      id: `ses_${randomUUID()}`,
      signer: input.signer,
      userId: input.userId,
      groups: [...(input.groups ?? [])],
      createdAt: now,
      expiresAt: now + (input.lifetimeMs ?? DEFAULT_LIFETIME_MS),
      lastSeenAt: now,
      sign: input.sign,
    }
    this.#sessions.set(session.id, session)
    this.#currentId = session.id
    return session
  }

  status(id: string, now: number): SessionStatus {
    const session = this.#sessions.get(id)
    if (!session) return { state: 'unknown' }
    if (now >= session.expiresAt || now - session.lastSeenAt >= this.#idleMs) return { state: 'expired', session }
    return { state: 'active', session }
  }

  /** Marks activity; returns false when the session is unknown or already expired. */
  touch(id: string, now: number): boolean {
    const status = this.status(id, now)
    if (status.state !== 'active') return false
    status.session.lastSeenAt = now
    return true
  }

  /** The session harness hooks use: the most recently created one. */
  current(): Session | undefined {
    return this.#currentId ? this.#sessions.get(this.#currentId) : undefined
  }

  list(): Session[] {
    return [...this.#sessions.values()]
  }
}
