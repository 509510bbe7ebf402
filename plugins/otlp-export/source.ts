/**
 * The shipper's view of a ledger.db: a read-only connection of its own (WAL reader), never the writer's. The
 * witnesses' cosignatures come from whoever opens the export (the daemon's ledger view, or the witness state
 * kept beside the ledger for `svc export`): this plugin does not know where witnessing keeps them.
 */
import { checkpointText, LedgerStore, type CosignatureView } from '../../core/index.ts'
import type { ExportSource } from './shipper.ts'

/** The newest cosignature of each witness of a ledger origin (none when witnessing is off). */
export type CosignatureReader = (origin: string) => readonly CosignatureView[]

export function ledgerExportSource(dbPath: string, cosignatures: CosignatureReader = () => []): ExportSource & { close(): void } {
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
    cosignatures: () =>
      cosignatures(origin)
        .filter((r) => r.cosignature !== '')
        .map((r) => {
          const root = Buffer.from(r.root, 'base64')
          return { witness: r.witness, treeSize: r.tree_size, root, timestamp: r.timestamp, note: `${checkpointText(origin, r.tree_size, root)}\n${r.cosignature}\n` }
        }),
    close: () => store.close(),
  }
}
