/**
 * Guardrail traces by ledger seq, in `$SVC_HOME/guardrail-traces.db` (they survive restarts, like the
 * ledger they annotate). Written by a ledgerAppend observer, after the leaf is durable.
 */
import { join } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { extensionRegistry, type Registries } from '../../core/index.ts'
import type { GuardrailTrace } from './trace.ts'

/** The trace store of one engine (opened by the plugin's initialize tap, read by the routes). */
export function guardrailTraces(registry: Registries): TraceStore | undefined {
  return extensionRegistry<TraceStore>(registry, 'guardrail-traces').get('store')
}

export class TraceStore {
  readonly #db: DatabaseSync
  readonly #put: StatementSync
  readonly #get: StatementSync

  constructor(home: string) {
    this.#db = new DatabaseSync(join(home, 'guardrail-traces.db'))
    this.#db.exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
      CREATE TABLE IF NOT EXISTS traces (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);`)
    this.#put = this.#db.prepare('INSERT OR REPLACE INTO traces (seq, body) VALUES (?, ?)')
    this.#get = this.#db.prepare('SELECT body FROM traces WHERE seq = ?')
  }

  put(trace: GuardrailTrace): void {
    this.#put.run(trace.seq, JSON.stringify(trace))
  }

  get(seq: number): GuardrailTrace | undefined {
    const row = this.#get.get(seq) as { body: string } | undefined
    return row ? (JSON.parse(row.body) as GuardrailTrace) : undefined
  }

  close(): void {
    this.#db.close()
  }
}
