/** The shipper's view of a ledger.db: a read-only connection of its own (WAL reader), never the writer's. */
import { join } from 'node:path'
import { LedgerStore } from '../../core/ledger/store.ts'
import { checkpointText } from '../../core/ledger/signed-note.ts'
import { readWitnessState } from '../../plugins/witness/state.ts'
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
    // Witness state lives beside the database (cli/fleet/witness-daemon.ts writes it).
    cosignatures: () =>
      Object.entries(readWitnessState(join(dbPath, '..'), origin).witnesses)
        .filter(([, r]) => r.cosignature !== '')
        .map(([witness, r]) => {
          const root = Buffer.from(r.root, 'base64')
          return { witness, treeSize: r.tree_size, root, timestamp: r.timestamp, note: `${checkpointText(origin, r.tree_size, root)}\n${r.cosignature}\n` }
        }),
    close: () => store.close(),
  }
}
