/**
 * `svc agent`: keeps the daemon's current session alive without a person. It long-polls
 * `GET /v1/sessions/current` (announcing itself as the renewer of its tier) and mints a replacement, signed
 * by the host key, whenever the daemon has no active session (it restarted, or the session idled out), a hook
 * is waiting for one, or the lifetime's end is near. Renewals rotate the old session and keep its user_id and
 * groups. Rules it never bends:
 * - a weaker signer never replaces a stronger one: a stronger session that expires is left to its owner,
 *   who is told what to type;
 * - TOTP is unlocked once (passphrase and a current code, typed in its terminal or piped with
 *   `--unlock-stdin`); the agent then holds the unlocked key in memory and re-mints by itself after daemon
 *   restarts and idle expiry until its unlock lifetime ends (default 12 h, `--unlock-lifetime`). Never
 *   unlocked, or past that end, it cannot renew silently: the user is told in time, on the desktop where
 *   possible and on the terminal, and hooks deny with the command to type. The keychain and software tiers
 *   read their key at each mint (the keychain's own expiry is checked every time).
 */
import { signerKindOf, type Tier } from '../../core/types.ts'
import type { SignerKind } from '../../core/types.ts'
import { callDaemon } from '../http.ts'
import { CliError, type CliIo } from '../io.ts'
import type { HostSigner } from '../signer/long-lived-key.ts'
import { mintOnDaemon, unlockForMint } from '../signer/mint-flow.ts'

/** What `GET /v1/sessions/current` answers. */
export interface CurrentSession {
  readonly instance_id: string
  readonly now: string
  readonly state: 'active' | 'expired' | 'none'
  readonly renewal_wanted: boolean
  readonly idle_timeout_ms: number
  readonly session?: {
    readonly session_id: string
    readonly signer: SignerKind
    readonly state: string
    readonly expires_at: string
    readonly idle_expires_at?: string
    readonly user_id?: string
    readonly groups?: readonly string[]
  }
  readonly renewer?: { readonly tier: string; readonly seen_at: string }
}

export interface RenewerOptions {
  readonly tier: Tier
  readonly home: string
  readonly baseUrl: string
  readonly userId?: string
  readonly groups?: readonly string[]
  readonly lifetimeMs?: number
  /** Renew this long before the lifetime ends (default 10 min, at most a quarter of the lifetime). */
  readonly renewBeforeMs?: number
  /** Desktop notification (the terminal line is always written too). */
  readonly notify: (title: string, body: string) => void
  readonly signal: AbortSignal
  /** Stop after this many mints (tests, `--once`). */
  readonly maxMints?: number
  /** How long an unlocked TOTP key is held for silent re-mints (default 12 h). */
  readonly unlockLifetimeMs?: number
  /** The first TOTP unlock reads the passphrase and code lines from stdin (a detached or scripted start). */
  readonly unlockFromStdin?: boolean
}

const RANK: Readonly<Record<SignerKind, number>> = { unattested: 0, software: 1, totp: 2, os_keychain: 3, hardware_key: 4 }
const LONG_POLL_MS = 25_000
/** Pause before looking again when renewing is not possible right now (a refusal, a code needed). */
const RETRY_MS = 5_000
const DEFAULT_LIFETIME_MS = 12 * 3_600_000
export const DEFAULT_UNLOCK_LIFETIME_MS = 12 * 3_600_000

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    const stop = () => {
      clearTimeout(timer)
      resolve()
    }
    signal.addEventListener('abort', stop, { once: true })
  })

/** Why the current session needs replacing now, or undefined while it is fine (with when to look again). */
export function renewalNeed(cur: CurrentSession, renewBeforeMs: number): { why?: string; recheckMs: number } {
  const s = cur.session
  if (!s || cur.state === 'none') return { why: 'the daemon has no session (it just started?)', recheckMs: 0 }
  if (cur.state !== 'active') return { why: `session ${s.session_id} has expired`, recheckMs: 0 }
  if (cur.renewal_wanted) return { why: 'a hook is waiting for a session', recheckMs: 0 }
  const due = Date.parse(s.expires_at) - renewBeforeMs - Date.parse(cur.now)
  if (due <= 0) return { why: `session ${s.session_id} ends at ${s.expires_at}`, recheckMs: 0 }
  return { recheckMs: Math.min(LONG_POLL_MS, due) }
}

/** Runs until `signal` aborts (or `maxMints` renewals happened). */
export async function runRenewer(io: CliIo, opts: RenewerOptions): Promise<void> {
  const kind = signerKindOf(opts.tier)
  const lifetimeMs = opts.lifetimeMs ?? DEFAULT_LIFETIME_MS
  const renewBeforeMs = Math.min(opts.renewBeforeMs ?? 10 * 60_000, Math.floor(lifetimeMs / 4))
  let identity = { userId: opts.userId, groups: opts.groups }
  let instance: string | undefined
  let waitMs = 0
  let backoffMs = 250
  let mints = 0
  let toldAbout: string | undefined
  const unlockLifetimeMs = opts.unlockLifetimeMs ?? DEFAULT_UNLOCK_LIFETIME_MS
  let held: { host: HostSigner; until: number } | undefined
  let stdinUnlock = opts.unlockFromStdin === true
  const tell = (key: string, title: string, body: string) => {
    if (toldAbout === key) return
    toldAbout = key
    io.err(`svc agent: ${title}: ${body}`)
    opts.notify(title, body)
  }

  while (!opts.signal.aborted) {
    let cur: CurrentSession
    try {
      cur = await callDaemon<CurrentSession>(opts.baseUrl, `/v1/sessions/current?renewer=${opts.tier}&wait_ms=${waitMs}`, { timeoutMs: waitMs + 10_000, signal: opts.signal })
      backoffMs = 250
    } catch (err) {
      if (opts.signal.aborted) return
      tell('unreachable', 'daemon unreachable', `${(err as Error).message}; retrying`)
      await sleep(backoffMs, opts.signal)
      backoffMs = Math.min(backoffMs * 2, 1_000)
      waitMs = 0
      continue
    }
    if (cur.instance_id !== instance) {
      if (instance !== undefined) io.err(`svc agent: the daemon restarted (${cur.instance_id})`)
      instance = cur.instance_id
      if (toldAbout === 'unreachable') toldAbout = undefined
    }
    const s = cur.session
    if (s && (s.user_id !== undefined || (s.groups?.length ?? 0) > 0)) identity = { userId: s.user_id, groups: s.groups }
    const need = renewalNeed(cur, renewBeforeMs)
    if (!need.why) {
      waitMs = need.recheckMs
      continue
    }
    // Cases only a person can fix: tell once, then look again every few seconds (the daemon answers at once
    // while it has no usable session, so without the pause this would spin).
    waitMs = 0
    if (s && RANK[s.signer] > RANK[kind]) {
      tell(
        `stronger:${s.session_id}`,
        `the ${s.signer} session needs you`,
        `${need.why}; this agent holds a weaker ${kind} key and never replaces a stronger signer: run \`svc session rotate --id ${s.session_id} --tier ${s.signer.replace('_', '-')}\``,
      )
      await sleep(RETRY_MS, opts.signal)
      continue
    }
    if (held && Date.now() >= held.until) {
      io.err(`svc agent: the TOTP unlock ended (${new Date(held.until).toISOString()}, --unlock-lifetime); the next renewal needs the passphrase and a code again`)
      held = undefined
    }
    if (opts.tier === 'totp' && !held && !io.interactive && !stdinUnlock) {
      const id = s?.session_id
      tell(
        `totp:${id ?? instance}`,
        'TOTP session needs a code',
        `${need.why}; type \`${id ? `svc session rotate --id ${id}` : 'svc session create'} --tier totp\` (it asks for the passphrase and a current code), or restart \`svc agent --tier totp\` in a terminal to unlock once for ${Math.round(unlockLifetimeMs / 3_600_000)} h`,
      )
      await sleep(RETRY_MS, opts.signal)
      continue
    }
    try {
      let host = held?.host
      if (opts.tier === 'totp' && !host) {
        // Hooks denied meanwhile say the truth: the code is asked for here, in this terminal.
        await callDaemon(opts.baseUrl, '/v1/sessions/current?renewer=totp&waiting=code', { signal: opts.signal }).catch(() => undefined)
        stdinUnlock = false
        host = await unlockForMint(io, { tier: opts.tier, home: opts.home })
        held = { host, until: Date.now() + unlockLifetimeMs }
        io.err(`svc agent: TOTP key unlocked until ${new Date(held.until).toISOString()}: renewals need no code until then`)
      }
      const minted = await mintOnDaemon(io, {
        tier: opts.tier,
        home: opts.home,
        baseUrl: opts.baseUrl,
        userId: identity.userId,
        groups: identity.groups,
        rotates: s?.session_id,
        lifetimeMs,
        ...(host ? { host } : {}),
      })
      io.err(`svc agent: renewed: ${minted.session_id} (signer ${minted.signer}, expires ${minted.expires_at}) because ${need.why}`)
      toldAbout = undefined
      waitMs = 0
      if (opts.maxMints !== undefined && ++mints >= opts.maxMints) return
    } catch (err) {
      tell(`mint:${(err as Error).message}`, 'cannot renew the session', (err as Error).message)
      if (err instanceof CliError && err.exitCode === 2) throw err
      await sleep(RETRY_MS, opts.signal)
    }
  }
}
