/**
 * Sessions the daemon knows. A session binds ledger entries to a signer kind; its key (when it has one)
 * lives in memory only, as a native KeyObject, and never touches disk. Lifetime and idle expiry follow
 * docs/architecture.md (12h from issue, 30 min idle, extended by heartbeat); a rotated session ends at once.
 * Once a session is expired its signer refuses to sign, so the next append fails.
 */
import { randomBytes } from 'node:crypto'
import { EngineError, ERR } from '../errors.ts'
import { signingKeyFromSeed } from '../ledger/ed25519.ts'
import type { SqliteLedger } from '../ledger/ledger.ts'
import { leafSignerFor, type LeafSigner } from '../ledger/leaf.ts'
import type { SessionCertificate } from '../types.ts'
import type { SessionFacts, SignerKind } from '../types.ts'

/** A session's lifetime from issue (docs/architecture.md). */
export const DEFAULT_LIFETIME_MS = 12 * 3600_000
/** How long a session may go without a call or heartbeat before it expires. */
export const DEFAULT_IDLE_MS = 30 * 60_000

/** Assurance order of signer kinds (weakest first), used to refuse silent downgrades of the current session. */
const SIGNER_RANK: Readonly<Record<SignerKind, number>> = { unattested: 0, software: 1, totp: 2, os_keychain: 3, hardware_key: 4 }

export interface Session extends SessionFacts {
  readonly createdAt: number
  readonly expiresAt: number
  lastSeenAt: number
  /** Set when a newer session rotated this one out. */
  endedAt?: number
  /** Signs leaves with the session key; absent for unattested sessions. */
  readonly sign?: LeafSigner
  /** Signs (or reuses) a checkpoint of the ledger's current root with the session key. */
  readonly signCheckpoint?: (ledger: SqliteLedger) => ReturnType<SqliteLedger['checkpoint']>
  /** Base64 session public key; absent for unattested sessions. */
  readonly publicKey?: string
  readonly certificate?: SessionCertificate
  readonly rotates?: string
}

export type SessionStatus = { state: 'active'; session: Session } | { state: 'expired'; session: Session } | { state: 'unknown' }

export interface NewSession {
  readonly signer: SignerKind
  readonly userId?: string
  readonly groups?: readonly string[]
  readonly lifetimeMs?: number
  /** A verified certificate (see `admitSession`); its session id, times and key are used as given. */
  readonly certificate?: SessionCertificate
  /** The 32-byte session seed; required with a signed certificate, wiped after use. */
  readonly seed?: Buffer
}

/** In-memory sessions by id, with the current one the hook route decides under. */
export class SessionStore {
  readonly #sessions = new Map<string, Session>()
  readonly #idleMs: number
  #currentId?: string
  /** Told whenever the sessions change (the daemon's renewal broker wakes waiting hooks and renewers). */
  readonly #listeners = new Set<() => void>()
  /** For a session that became current: the one it took over from (restored if it is discarded). */
  readonly #tookOverFrom = new Map<string, string | undefined>()

  constructor(opts: { idleMs?: number } = {}) {
    this.#idleMs = opts.idleMs ?? DEFAULT_IDLE_MS
  }

  /** Calls `listener` after every session change; answers the function that stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** The idle expiry this store applies. */
  get idleMs(): number {
    return this.#idleMs
  }

  /** Registers a session; with a certificate, the session id, validity and key come from it. */
  create(input: NewSession, now: number): Session {
    const bundle = input.certificate?.bundle
    const id = bundle?.session_id ?? `ses_${randomBytes(12).toString('hex')}`
    if (this.#sessions.has(id)) throw new EngineError(ERR.SESSION_INVALID, `session ${id} already exists`)
    if ((input.signer === 'unattested') !== (input.seed === undefined)) {
      throw new EngineError(ERR.SESSION_INVALID, input.signer === 'unattested' ? 'an unattested session has no key' : `a ${input.signer} session needs its session key`)
    }
    let sign: LeafSigner | undefined
    let signCheckpoint: Session['signCheckpoint']
    if (input.seed) {
      const key = signingKeyFromSeed(input.seed)
      signCheckpoint = (ledger) => ledger.checkpoint(key, id)
      input.seed.fill(0)
      const raw = leafSignerFor(key)
      sign = (leafHash) => {
        const status = this.status(id, Date.now())
        if (status.state !== 'active') throw new EngineError(ERR.SESSION_INVALID, `session ${id} has expired: run \`svc session rotate --id ${id}\``)
        return raw(leafHash)
      }
    }
    const session: Session = {
      id,
      signer: input.signer,
      userId: input.userId,
      groups: [...(input.groups ?? [])],
      createdAt: bundle?.issued_at_ms ?? now,
      expiresAt: bundle?.expires_at_ms ?? now + (input.lifetimeMs ?? DEFAULT_LIFETIME_MS),
      lastSeenAt: now,
      ...(sign ? { sign, signCheckpoint } : {}),
      ...(bundle?.session_public_key ? { publicKey: bundle.session_public_key } : {}),
      ...(input.certificate ? { certificate: input.certificate } : {}),
      ...(bundle?.rotates ? { rotates: bundle.rotates } : {}),
    }
    this.#sessions.set(id, session)
    if (this.#mayBecomeCurrent(session, now)) {
      this.#tookOverFrom.set(id, this.#currentId)
      this.#currentId = id
    }
    for (const listener of this.#listeners) listener()
    return session
  }

  /**
   * Removes a session whose creation could not be recorded, as if it had never been created: it is
   * unknown from now on and the session it took over from is current again.
   */
  discard(id: string): void {
    if (!this.#sessions.delete(id)) return
    if (this.#currentId === id) this.#currentId = this.#tookOverFrom.get(id)
    this.#tookOverFrom.delete(id)
  }

  /** Sessions that can still sign and decide (not ended, not expired), optionally of one signer kind. */
  activeCount(now: number, signer?: SignerKind): number {
    let n = 0
    for (const s of this.#sessions.values()) if ((signer === undefined || s.signer === signer) && this.status(s.id, now).state === 'active') n++
    return n
  }

  /**
   * A new session takes over the harness hooks unless it would silently downgrade an active current
   * session to a weaker signer: then it must rotate that session explicitly (`svc session rotate --id`).
   */
  #mayBecomeCurrent(session: Session, now: number): boolean {
    const current = this.#currentId === undefined ? undefined : this.status(this.#currentId, now)
    if (current?.state !== 'active') return true
    return session.rotates === current.session.id || SIGNER_RANK[session.signer] >= SIGNER_RANK[current.session.signer]
  }

  /** Ends a session that a newer one replaced; its signer stops signing. */
  end(id: string, now: number): void {
    const session = this.#sessions.get(id)
    if (session && session.endedAt === undefined) session.endedAt = now
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id)
  }

  status(id: string, now: number): SessionStatus {
    const session = this.#sessions.get(id)
    if (!session) return { state: 'unknown' }
    if (session.endedAt !== undefined || now >= session.expiresAt || now - session.lastSeenAt >= this.#idleMs) return { state: 'expired', session }
    return { state: 'active', session }
  }

  /** When the session expires if it stays idle from now on. */
  idleDeadline(session: Session): number {
    return Math.min(session.expiresAt, session.lastSeenAt + this.#idleMs)
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
