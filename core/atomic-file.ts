/**
 * Atomic, permission-restricted file writes (write-file-atomic: temp file + fsync + rename), so a key,
 * trust, password, pin or manifest file is either the old or the new version, never half-written, and
 * never readable by others.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'

/** Writes `data` atomically with mode 0600, creating the parent directory with mode 0700. */
export function writePrivateFile(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  writeFileAtomic.sync(path, typeof data === 'string' ? data : Buffer.from(data), { mode: 0o600, fsync: true })
}
