/**
 * The grants' state, in `$SVC_HOME/grants.db`: the codes a deny named (what exact call each refers to), the
 * grants the user gave, and the signed requests already used (a request is accepted once). Opened by the
 * daemon only (its routes open it): a one-shot engine (`svc explain`) names no code and applies no grant.
 */
import { randomBytes, randomInt } from 'node:crypto'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

/** Code alphabet: upper case and digits without the look-alikes (0/O, 1/I/L, U/V). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTWXYZ23456789'
export const CODE_PATTERN = /^[ABCDEFGHJKMNPQRSTWXYZ23456789]{6}$/
/** How long a code a deny named can be granted. */
export const CODE_TTL_MS = 15 * 60_000

/** What a deny's code refers to. */
export interface CodeRow {
  readonly code: string
  readonly payload_hash: string
  readonly cwd: string
  readonly session_id: string
  readonly tool: string
  readonly gates: readonly string[]
  readonly created_ms: number
  readonly expires_ms: number
  readonly deny_seq: number | null
}

/** A grant the user gave: one exact call (`call`, by its code) or a gate in a project (`rule`). */
export interface GrantRow {
  readonly id: string
  readonly kind: 'call' | 'rule'
  readonly code: string | null
  readonly payload_hash: string | null
  readonly cwd: string | null
  readonly gates: readonly string[]
  readonly project: string | null
  /** Once: the first call it lets through uses it up. */
  readonly once: boolean
  readonly uses: number
  readonly created_ms: number
  readonly expires_ms: number
  readonly granted_seq: number | null
  readonly who: string
}

type Raw = Record<string, string | number | null>

export class GrantStore {
  readonly #db: DatabaseSync

  constructor(home: string) {
    this.#db = new DatabaseSync(join(home, 'grants.db'))
    this.#db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
      CREATE TABLE IF NOT EXISTS codes (code TEXT PRIMARY KEY, payload_hash TEXT NOT NULL, cwd TEXT NOT NULL, session_id TEXT NOT NULL,
        tool TEXT NOT NULL, gates TEXT NOT NULL, created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL, deny_seq INTEGER);
      CREATE TABLE IF NOT EXISTS grants (id TEXT PRIMARY KEY, kind TEXT NOT NULL, code TEXT, payload_hash TEXT, cwd TEXT, gates TEXT NOT NULL,
        project TEXT, once INTEGER NOT NULL, uses INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL,
        granted_seq INTEGER, who TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, seen_ms INTEGER NOT NULL);`)
  }

  /** The code for a denied call: the live one already named for the same call and gates, else a new one. */
  codeFor(call: { payloadHash: string; cwd: string; sessionId: string; tool: string; gates: readonly string[] }, now: number): string {
    const gates = JSON.stringify([...call.gates].sort())
    const live = this.#db
      .prepare('SELECT code FROM codes WHERE payload_hash = ? AND gates = ? AND expires_ms > ? ORDER BY created_ms DESC LIMIT 1')
      .get(call.payloadHash, gates, now + 60_000) as { code: string } | undefined
    if (live) return live.code
    this.#db.prepare('DELETE FROM codes WHERE expires_ms < ?').run(now - 24 * 3_600_000)
    for (;;) {
      const code = Array.from({ length: 6 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')
      const taken = this.#db.prepare('SELECT 1 FROM codes WHERE code = ?').get(code)
      if (taken) continue
      this.#db
        .prepare('INSERT INTO codes (code, payload_hash, cwd, session_id, tool, gates, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(code, call.payloadHash, call.cwd, call.sessionId, call.tool, gates, now, now + CODE_TTL_MS)
      return code
    }
  }

  /** Remembers the seq of the deny leaf that named `code`. */
  setDenySeq(code: string, seq: number): void {
    this.#db.prepare('UPDATE codes SET deny_seq = ? WHERE code = ? AND deny_seq IS NULL').run(seq, code)
  }

  code(code: string): CodeRow | undefined {
    const row = this.#db.prepare('SELECT * FROM codes WHERE code = ?').get(code) as Raw | undefined
    return row ? { ...(row as unknown as CodeRow), gates: JSON.parse(String(row.gates)) as string[] } : undefined
  }

  /** Records a signed request as used; false when it was used before (a replay). */
  firstUse(requestId: string, now: number): boolean {
    this.#db.prepare('DELETE FROM requests WHERE seen_ms < ?').run(now - 24 * 3_600_000)
    return this.#db.prepare('INSERT OR IGNORE INTO requests (id, seen_ms) VALUES (?, ?)').run(requestId, now).changes === 1
  }

  add(grant: Omit<GrantRow, 'id' | 'uses' | 'granted_seq'>): GrantRow {
    const id = `g_${randomBytes(6).toString('hex')}`
    this.#db
      .prepare('INSERT INTO grants (id, kind, code, payload_hash, cwd, gates, project, once, created_ms, expires_ms, who) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, grant.kind, grant.code, grant.payload_hash, grant.cwd, JSON.stringify(grant.gates), grant.project, grant.once ? 1 : 0, grant.created_ms, grant.expires_ms, grant.who)
    return { ...grant, id, uses: 0, granted_seq: null }
  }

  setGrantedSeq(id: string, seq: number): void {
    this.#db.prepare('UPDATE grants SET granted_seq = ? WHERE id = ?').run(seq, id)
  }

  /** The grants that could let a call through now: unexpired, and not used up. */
  live(now: number): GrantRow[] {
    const rows = this.#db.prepare('SELECT * FROM grants WHERE expires_ms > ? AND NOT (once = 1 AND uses > 0) ORDER BY created_ms').all(now) as Raw[]
    return rows.map((r) => ({ ...(r as unknown as GrantRow), once: r.once === 1, gates: JSON.parse(String(r.gates)) as string[] }))
  }

  /** Counts a use; false when a once-grant was used meanwhile. */
  use(id: string): boolean {
    return this.#db.prepare('UPDATE grants SET uses = uses + 1 WHERE id = ? AND NOT (once = 1 AND uses > 0)').run(id).changes === 1
  }

  close(): void {
    this.#db.close()
  }
}
