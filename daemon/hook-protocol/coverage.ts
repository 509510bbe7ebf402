/**
 * Hook coverage: which harness sessions the daemon hears from, and whether their tool calls were gated. A
 * post-tool event whose tool use has no decision leaf means the tool ran without svc's pre-tool hook
 * (a project setting switched it off, the harness bypassed it, or the entry is disabled): such a session
 * is "ungated". Kept in memory, bounded; each ungated call is also a `hook_bypassed` control leaf.
 */

export interface CoverageSession {
  readonly harness: string
  readonly harness_session_id?: string
  readonly cwd?: string
  readonly gated: number
  readonly ungated: number
  readonly first_seen_at: string
  readonly last_seen_at: string
  readonly last_ungated_at?: string
}

interface Entry {
  harness: string
  harnessSessionId?: string
  cwd?: string
  gated: number
  ungated: number
  firstSeen: number
  lastSeen: number
  lastUngated?: number
}

export interface CoverageCall {
  readonly source: string
  readonly cwd?: string
  readonly meta?: Readonly<Record<string, unknown>>
}

const MAX_SESSIONS = 256

export class HookCoverage {
  readonly #entries = new Map<string, Entry>()

  #entry(call: CoverageCall, now: number): Entry {
    const id = typeof call.meta?.harness_session_id === 'string' ? call.meta.harness_session_id : undefined
    const key = `${call.source}\u0000${id ?? `cwd:${call.cwd ?? ''}`}`
    let entry = this.#entries.get(key)
    if (!entry) {
      entry = { harness: call.source, ...(id ? { harnessSessionId: id } : {}), gated: 0, ungated: 0, firstSeen: now, lastSeen: now }
      this.#entries.set(key, entry)
      if (this.#entries.size > MAX_SESSIONS) {
        const oldest = [...this.#entries].sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0]!
        this.#entries.delete(oldest[0])
      }
    }
    if (call.cwd) entry.cwd = call.cwd
    entry.lastSeen = now
    return entry
  }

  /** Any hook event of the session reached the daemon. */
  seen(call: CoverageCall, now = Date.now()): void {
    this.#entry(call, now)
  }

  /** A pre-tool call reached the daemon. */
  gated(call: CoverageCall, now = Date.now()): void {
    this.#entry(call, now).gated++
  }

  /** A tool ran that no pre-tool call of this daemon's ledger decided. */
  ungated(call: CoverageCall, now = Date.now()): void {
    const entry = this.#entry(call, now)
    entry.ungated++
    entry.lastUngated = now
  }

  /** Sessions, most recently seen first. */
  sessions(): CoverageSession[] {
    const iso = (ms: number) => new Date(ms).toISOString()
    return [...this.#entries.values()]
      .sort((a, b) => b.lastSeen - a.lastSeen)
      .map((e) => ({
        harness: e.harness,
        ...(e.harnessSessionId ? { harness_session_id: e.harnessSessionId } : {}),
        ...(e.cwd ? { cwd: e.cwd } : {}),
        gated: e.gated,
        ungated: e.ungated,
        first_seen_at: iso(e.firstSeen),
        last_seen_at: iso(e.lastSeen),
        ...(e.lastUngated === undefined ? {} : { last_ungated_at: iso(e.lastUngated) }),
      }))
  }
}
