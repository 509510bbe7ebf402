/**
 * `$SVC_HOME/checkpoints.log`: every checkpoint the daemon signs, ALSO kept outside ledger.db, so that
 * truncating the leaves together with their checkpoint rows (or replacing the whole file) is still caught.
 * Append-only text, one JSON object per line, each line written with O_APPEND and fsynced:
 *
 *   {"v":1,"origin":"svc.local/…","tree_size":N,"root":"<base64>","signer_kid":"ses_…","vkey":"<C2SP vkey>",
 *    "ts_ms":…,"note":"<the C2SP signed note, newlines escaped by JSON>"}
 *
 * A torn last line (crash mid-write) is reported by `readCheckpointLog` and otherwise ignored.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, readSync, statSync, writeSync } from 'node:fs'

/** One checkpoint log entry. */
export interface CheckpointLogEntry {
  readonly v: 1
  readonly origin: string
  readonly tree_size: number
  /** Base64 root hash. */
  readonly root: string
  readonly signer_kid: string
  /** C2SP verifier key of the signing session key (`name+keyid+base64(0x01‖pub)`). */
  readonly vkey: string
  readonly ts_ms: number
  readonly note: string
}

/** The log file beside a ledger database (undefined for an in-memory ledger). */
export function checkpointLogBeside(dbPath: string): string | undefined {
  if (dbPath === ':memory:') return undefined
  const slash = dbPath.lastIndexOf('/')
  return `${slash < 0 ? '.' : dbPath.slice(0, slash)}/checkpoints.log`
}

/** Appends entries as lines and fsyncs before returning; throws on any I/O error (disk full, missing dir). */
export function appendCheckpointLog(path: string, entries: readonly CheckpointLogEntry[]): void {
  if (entries.length === 0) return
  const fd = openSync(path, 'a', 0o600)
  try {
    const text = Buffer.from(entries.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8')
    let written = 0
    while (written < text.length) written += writeSync(fd, text, written)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function parseEntry(line: string): CheckpointLogEntry | undefined {
  try {
    const e = JSON.parse(line) as Partial<CheckpointLogEntry>
    const ok =
      e.v === 1 &&
      typeof e.origin === 'string' &&
      Number.isSafeInteger(e.tree_size) &&
      typeof e.root === 'string' &&
      typeof e.signer_kid === 'string' &&
      typeof e.vkey === 'string' &&
      typeof e.note === 'string'
    return ok ? (e as CheckpointLogEntry) : undefined
  } catch {
    return undefined
  }
}

/** Every entry of the log, plus the line numbers (1-based) that are not entries. Absent file: no entries. */
export function readCheckpointLog(path: string): { entries: CheckpointLogEntry[]; badLines: number[]; exists: boolean; lines: number } {
  if (!existsSync(path)) return { entries: [], badLines: [], exists: false, lines: 0 }
  const entries: CheckpointLogEntry[] = []
  const badLines: number[] = []
  const lines = readFileSync(path, 'utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  lines.forEach((line, i) => {
    const e = parseEntry(line)
    if (e) entries.push(e)
    else badLines.push(i + 1)
  })
  return { entries, badLines, exists: true, lines: lines.length }
}

const TAIL_BYTES = 256 * 1024

/** The newest well-formed entry, read from the file's tail only (the log grows for as long as the ledger). */
export function lastCheckpointLogEntry(path: string): CheckpointLogEntry | undefined {
  if (!existsSync(path)) return undefined
  const size = statSync(path).size
  const length = Math.min(size, TAIL_BYTES)
  const buf = Buffer.alloc(length)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, buf, 0, length, size - length)
  } finally {
    closeSync(fd)
  }
  const lines = buf.toString('utf8').split('\n')
  for (let i = lines.length - 1; i >= 0; i--) {
    const e = parseEntry(lines[i]!)
    if (e) return e
  }
  return undefined
}
