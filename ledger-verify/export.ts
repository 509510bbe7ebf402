/**
 * The portable ledger export (`svc ledger export`): origin, every leaf's exact bytes and signature, and every
 * stored checkpoint, as one JSON document that `svc ledger verify --file` (or any RFC 6962 tool) can check
 * without the database.
 */
import { readFileSync } from 'node:fs'
import type { CheckpointRecord, LeafRecord } from './verify-ledger.ts'
import { LedgerStore } from '../core/ledger/store.ts'

export interface LedgerExport {
  readonly format: 'svc-ledger-export/v1'
  readonly origin: string
  readonly tree_size: number
  readonly leaves: readonly { seq: number; body: string; sig: string | null }[]
  readonly checkpoints: readonly { tree_size: number; root: string; note: string; signer_kid: string }[]
}

/** Verification inputs from an export file. */
export interface LedgerSource {
  readonly origin: string | undefined
  readonly leaves: readonly LeafRecord[]
  readonly checkpoints: readonly CheckpointRecord[]
}

/** Reads an export file as a verification source; throws naming the file when it is not an export. */
export function sourceFromExport(path: string): LedgerSource {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Partial<LedgerExport>
  if (doc.format !== 'svc-ledger-export/v1' || !Array.isArray(doc.leaves)) throw new Error(`${path} is not an svc ledger export (format svc-ledger-export/v1)`)
  return {
    origin: doc.origin,
    leaves: doc.leaves.map((l) => ({ seq: l.seq, body: l.body, sig: l.sig === null ? null : Buffer.from(l.sig, 'base64') })),
    checkpoints: (doc.checkpoints ?? []).map((c) => ({ treeSize: c.tree_size, root: Buffer.from(c.root, 'base64'), note: c.note, signerKid: c.signer_kid })),
  }
}

/** Builds the export document of a database. */
export function exportLedger(path: string): LedgerExport {
  const store = new LedgerStore(path, { readOnly: true })
  try {
    const leaves = [...store.allLeaves()].map((l) => ({ seq: l.seq, body: l.body, sig: l.sig ? l.sig.toString('base64') : null }))
    const checkpoints = store.checkpoints().map((c) => ({ tree_size: c.treeSize, root: c.root.toString('base64'), note: c.note, signer_kid: c.signerKid }))
    return { format: 'svc-ledger-export/v1', origin: store.meta('origin') ?? '', tree_size: leaves.length, leaves, checkpoints }
  } finally {
    store.close()
  }
}
