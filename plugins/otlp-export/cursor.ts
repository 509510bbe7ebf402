/**
 * The per-endpoint export cursor: how far the collector at one endpoint has ACCEPTED this ledger's stream.
 * It lives in `$SVC_HOME/export/otlp-<sha256(endpoint)[:16]>.json`, written atomically (temp + fsync +
 * rename) only after a batch was accepted, so a crash or a collector outage re-sends, never skips.
 * A cursor of another ledger origin (a new ledger replaced the old one) starts over at seq 0.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256, writePrivateFile } from '../../core/index.ts'
import { logsUrl } from './exporter.ts'

export interface ExportCursor {
  readonly endpoint: string
  readonly origin: string
  /** The next leaf seq to ship. */
  readonly nextSeq: number
  /** The largest checkpoint tree size shipped (0: none). */
  readonly checkpointSize: number
  /** Per witness, the tree size of the newest cosignature shipped. */
  readonly witnessed: Readonly<Record<string, number>>
}

/** The cursor file of an endpoint (its normalised `/v1/logs` URL) under `$SVC_HOME`. */
export function cursorPath(home: string, endpoint: string): string {
  return join(home, 'export', `otlp-${sha256(logsUrl(endpoint)).slice(0, 16)}.json`)
}

/** Reads the cursor; a missing file or another origin starts at the beginning. A damaged file is an error. */
export function readCursor(path: string, endpoint: string, origin: string): ExportCursor {
  const fresh = { endpoint, origin, nextSeq: 0, checkpointSize: 0, witnessed: {} }
  if (!existsSync(path)) return fresh
  let doc: Partial<{ endpoint: string; origin: string; next_seq: number; checkpoint_size: number; witnessed: Record<string, number> }>
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new Error(`export cursor ${path} is not JSON (${(err as Error).message}); remove it to re-send everything`)
  }
  if (!Number.isSafeInteger(doc.next_seq) || !Number.isSafeInteger(doc.checkpoint_size) || doc.next_seq! < 0) {
    throw new Error(`export cursor ${path} is malformed; remove it to re-send everything`)
  }
  if (doc.origin !== origin) return fresh
  return {
    endpoint,
    origin,
    nextSeq: doc.next_seq!,
    checkpointSize: doc.checkpoint_size!,
    witnessed: typeof doc.witnessed === 'object' && doc.witnessed !== null ? doc.witnessed : {},
  }
}

/** Persists the cursor durably. */
export function writeCursor(path: string, c: ExportCursor): void {
  writePrivateFile(path, `${JSON.stringify({ endpoint: c.endpoint, origin: c.origin, next_seq: c.nextSeq, checkpoint_size: c.checkpointSize, witnessed: c.witnessed })}\n`)
}
