/** The shipper's view of a ledger.db: a read-only connection of its own (WAL reader), never the writer's. */
import { LedgerStore } from '../../core/ledger/store.ts'
import type { ExportSource } from '../../plugins/otlp-export/shipper.ts'

export function ledgerExportSource(dbPath: string): ExportSource & { close(): void } {
  const store = new LedgerStore(dbPath, { readOnly: true })
  const origin = store.meta('origin')
  if (origin === undefined) {
    store.close()
    throw new Error(`${dbPath} has no ledger origin yet (start the daemon once)`)
  }
  const between = store.db.prepare('SELECT * FROM checkpoints WHERE tree_size > ? AND tree_size <= ? ORDER BY tree_size')
  return {
    origin,
    leavesFrom: (from, limit) => store.leavesAfter(from - 1, limit).map((r) => ({ seq: r.seq, body: r.body, leafHash: r.leafHash, sig: r.sig })),
    checkpointsBetween: (after, upto) =>
      (between.all(after, upto) as Record<string, unknown>[]).map((row) => ({
        treeSize: Number(row.tree_size),
        root: Buffer.from(row.root as Uint8Array),
        note: String(row.note),
        signerKid: String(row.signer_kid),
        createdMs: Number(row.created_ms),
      })),
    close: () => store.close(),
  }
}
