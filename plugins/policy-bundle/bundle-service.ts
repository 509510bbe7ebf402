/**
 * The policy bundle a daemon takes its daemon/registry/group layers from: restores the last good bundle
 * at start (re-verified), polls the managed URL with ETag and jitter, and activates a new bundle only once
 * it is signed by a pinned key, newer than the active one, unexpired and compiles. Every activation and
 * refusal is a control leaf with the revision and the bundle's SHA-256; the previous bundle stays otherwise.
 */
import type { Logger } from 'pino'
import type { Engine, OperatorEventVerdict } from '../../core/index.ts'
import { bundleSourcesAt, isBundleSource, sha256 as sha256Hex } from '../../core/index.ts'
import { BundleError } from './layout.ts'
import { activate, deactivate, prune, readActive, stageBundle } from './disk.ts'
import { fetchBundle } from './fetch-bundle.ts'
import type { ManagedSettings } from './managed.ts'
import { refusalAgainst, verifyBundle, type VerifiedBundle } from './verify.ts'

export interface ActiveBundle {
  readonly revision: number
  readonly sha256: string
  readonly content_hash: string
  readonly keyid: string
  readonly activated_at: string
  readonly expires?: string
  readonly expired: boolean
}

export interface BundleCheck {
  readonly at: string
  readonly outcome: 'activated' | 'unchanged' | 'not_modified' | 'refused' | 'unreachable'
  readonly reason?: string
  readonly revision?: number
  readonly sha256?: string
}

export interface BundleStatus {
  readonly configured: boolean
  readonly managed_file?: string
  readonly url?: string
  readonly trusted_keys: readonly string[]
  readonly floor: { readonly mode?: string; readonly packs?: Readonly<Record<string, string>> }
  readonly active?: ActiveBundle
  readonly last_check?: BundleCheck
  readonly last_refusal?: BundleCheck
  readonly checks: number
}

type EngineView = Pick<Engine, 'policy' | 'recordEvent'>
type Pending = readonly [OperatorEventVerdict, Record<string, string>, string]

export class BundleService {
  readonly #home: string
  readonly #managed?: ManagedSettings
  readonly #log: Logger
  #active?: VerifiedBundle & { activatedAt: number }
  #etag?: string
  #lastCheck?: BundleCheck
  #lastRefusal?: BundleCheck
  #checks = 0
  #engine?: EngineView
  #pending: Pending[] = []
  #timer?: NodeJS.Timeout
  #closed = false
  #inFlight?: Promise<void>

  constructor(home: string, managed: ManagedSettings | undefined, log: Logger) {
    this.#home = home
    this.#managed = managed
    this.#log = log
  }

  /** At start, before policy loads: keep the last good bundle only if it still verifies against today's pins. */
  async restore(): Promise<void> {
    const saved = readActive(this.#home)
    const settings = this.#managed?.bundle
    if (!saved) return prune(this.#home)
    if (!settings) {
      deactivate(this.#home)
      prune(this.#home)
      await this.#refused({ reason: 'a policy bundle was active but no managed file pins bundle keys any more; its layers are dropped' })
      return
    }
    try {
      const bundle = await verifyBundle(saved.bytes, settings.roots)
      // The files in force are unpacked again from the verified bytes, not trusted as they lie on disk.
      activate(this.#home, stageBundle(this.#home, bundle, saved.bytes))
      this.#active = { ...bundle, activatedAt: Date.now() }
      this.#log.info({ revision: bundle.revision, sha256: bundle.sha256 }, 'policy bundle restored from disk (re-verified)')
    } catch (err) {
      deactivate(this.#home)
      prune(this.#home)
      await this.#refused({ reason: `last good bundle on disk no longer verifies: ${(err as Error).message}` })
    }
  }

  /** Starts polling once the engine exists (the daemon's routes call it; one-shot CLI engines never poll). */
  start(engine: EngineView): void {
    this.#engine = engine
    for (const [verdict, facts, reason] of this.#pending.splice(0)) void this.#ledger(verdict, facts, reason)
    const broken = engine.policy.files().find((f) => f.status === 'error' && isBundleSource(f.source))
    if (broken && this.#active) {
      void this.#refused({
        reason: `the active bundle revision ${this.#active.revision} does not compile on this svc (${broken.error!.message}); every call is denied until a revision that compiles is served`,
        revision: this.#active.revision,
        sha256: this.#active.sha256,
      })
    }
    if (this.#managed?.bundle) this.#schedule(0)
  }

  /** Polls now (tests and `svc status` never need to wait for the jittered timer). */
  checkNow(): Promise<void> {
    this.#inFlight ??= this.#poll().finally(() => {
      this.#inFlight = undefined
    })
    return this.#inFlight
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    await this.#inFlight
  }

  status(now = Date.now()): BundleStatus {
    const a = this.#active
    const settings = this.#managed?.bundle
    return {
      configured: settings !== undefined,
      ...(this.#managed ? { managed_file: this.#managed.path } : {}),
      ...(settings ? { url: settings.url } : {}),
      trusted_keys: settings?.roots.map((r) => r.keyid) ?? [],
      floor: { ...this.#managed?.floor },
      ...(a
        ? {
            active: {
              revision: a.revision,
              sha256: a.sha256,
              content_hash: a.contentHash,
              keyid: a.keyid,
              activated_at: new Date(a.activatedAt).toISOString(),
              ...(a.expiresAt !== undefined ? { expires: new Date(a.expiresAt).toISOString() } : {}),
              expired: a.expiresAt !== undefined && a.expiresAt <= now,
            },
          }
        : {}),
      ...(this.#lastCheck ? { last_check: this.#lastCheck } : {}),
      ...(this.#lastRefusal ? { last_refusal: this.#lastRefusal } : {}),
      checks: this.#checks,
    }
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return
    this.#timer = setTimeout(() => {
      void this.checkNow().finally(() => {
        const s = this.#managed!.bundle!
        this.#schedule(s.minDelayMs + Math.random() * (s.maxDelayMs - s.minDelayMs))
      })
    }, delayMs)
    this.#timer.unref()
  }

  async #poll(): Promise<void> {
    const settings = this.#managed?.bundle
    if (!settings || this.#closed) return
    const got = await fetchBundle(settings, this.#etag)
    this.#checks++
    const at = new Date().toISOString()
    if (got.kind === 'not_modified') this.#lastCheck = { at, outcome: 'not_modified' }
    else if (got.kind === 'unreachable') {
      this.#lastCheck = { at, outcome: 'unreachable', reason: got.reason }
      this.#log.warn({ reason: got.reason }, 'policy bundle server unreachable; the active bundle stays in force')
    } else {
      await this.#offer(got.bytes)
      this.#etag = got.etag
    }
  }

  /** Verifies, compiles and activates a downloaded bundle, or refuses it and keeps the active one. */
  async #offer(bytes: Buffer): Promise<void> {
    const settings = this.#managed!.bundle!
    let bundle: VerifiedBundle
    try {
      bundle = await verifyBundle(bytes, settings.roots)
    } catch (err) {
      const claimed = err instanceof BundleError ? err.claimedRevision : undefined
      return this.#refused({ reason: (err as Error).message, ...(claimed !== undefined ? { revision: claimed } : {}) }, bytes)
    }
    const active = this.#active
    if (active && active.revision === bundle.revision && active.contentHash === bundle.contentHash) {
      this.#lastCheck = { at: new Date().toISOString(), outcome: 'unchanged', revision: bundle.revision, sha256: bundle.sha256 }
      return
    }
    const refusal = refusalAgainst(bundle, active, Date.now())
    if (refusal) return this.#refused({ reason: refusal, revision: bundle.revision, sha256: bundle.sha256 })
    const dir = stageBundle(this.#home, bundle, bytes)
    const problem = await this.#engine!.policy.checkCompiles(bundleSourcesAt(dir), Date.now())
    if (problem) {
      prune(this.#home, active ? readActive(this.#home)?.dir.split('/').pop() : undefined)
      return this.#refused({ reason: `bundle revision ${bundle.revision} does not compile: ${problem.message}`, revision: bundle.revision, sha256: bundle.sha256 })
    }
    const previousHash = this.#engine!.policy.hash
    activate(this.#home, dir)
    await this.#engine!.policy.refreshInBackground()
    const facts = {
      revision: String(bundle.revision),
      sha256: bundle.sha256,
      keyid: bundle.keyid,
      url: settings.url,
      previous_revision: active ? String(active.revision) : '',
      policy_hash: this.#engine!.policy.hash,
      previous_policy_hash: previousHash,
    }
    this.#log.info(facts, 'policy bundle activated')
    // The status reports the new revision only once its leaf is in the ledger, so nobody reads one without the other.
    await this.#ledger('policy_bundle_activated', facts, `policy bundle revision ${bundle.revision} activated (${bundle.sha256.slice(0, 16)}…, signed by ${bundle.keyid})`)
    this.#active = { ...bundle, activatedAt: Date.now() }
    this.#lastCheck = { at: new Date().toISOString(), outcome: 'activated', revision: bundle.revision, sha256: bundle.sha256 }
  }

  async #refused(check: Omit<BundleCheck, 'at' | 'outcome'>, bytes?: Buffer): Promise<void> {
    const sha256 = check.sha256 ?? (bytes ? sha256Hex(bytes) : undefined)
    const entry: BundleCheck = { at: new Date().toISOString(), outcome: 'refused', ...check, ...(sha256 ? { sha256 } : {}) }
    const repeat = this.#lastRefusal?.sha256 !== undefined && this.#lastRefusal.sha256 === sha256 && this.#lastRefusal.reason === check.reason
    if (!repeat) {
      this.#log.error({ revision: check.revision, sha256 }, `policy bundle refused, the active bundle stays in force: ${check.reason}`)
      const facts = {
        reason: check.reason ?? '',
        revision: check.revision === undefined ? '' : String(check.revision),
        sha256: sha256 ?? '',
        active_revision: this.#active ? String(this.#active.revision) : '',
      }
      await this.#ledger('policy_bundle_refused', facts, `policy bundle refused: ${check.reason}`)
    }
    this.#lastCheck = entry
    this.#lastRefusal = entry
  }

  /** Appends a control leaf (queued until the engine exists); a failed append is logged, never thrown into the poll loop. */
  async #ledger(verdict: OperatorEventVerdict, facts: Record<string, string>, reason: string): Promise<void> {
    if (!this.#engine) {
      this.#pending.push([verdict, facts, reason])
      return
    }
    await this.#engine.recordEvent(verdict, facts, reason).catch((err: unknown) => this.#log.error({ err, verdict }, 'could not ledger a policy bundle event'))
  }
}
