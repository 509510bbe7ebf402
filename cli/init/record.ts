/**
 * What `svc init` did, kept in `$SVC_HOME/init.json` so `svc init --undo` removes exactly that: the harness
 * configs' bytes before (a hash, to prove the undo byte-exact), whether it set the password or enrolled the
 * signer, and how it runs the daemon and the renewer (service files, or detached processes by pid).
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'

export interface ConfigBefore {
  readonly path: string
  /** sha256 of the bytes before init, or null when the file did not exist. */
  readonly sha256: string | null
}

export interface InitRecord {
  readonly v: 1
  readonly at: string
  readonly tier: string
  readonly port: number
  /** Set by this init (not one that was there before). */
  readonly passwordSet: boolean
  readonly enrolled?: 'os-keychain' | 'totp' | 'software'
  readonly runner: { readonly kind: 'service'; readonly manager: string } | { readonly kind: 'detached'; readonly daemonPid?: number; readonly agentPid?: number }
  readonly harnesses: readonly string[]
  readonly configs: readonly ConfigBefore[]
}

export const recordPath = (home: string) => join(home, 'init.json')

export function readRecord(home: string): InitRecord | undefined {
  const path = recordPath(home)
  if (!existsSync(path)) return undefined
  return JSON.parse(readFileSync(path, 'utf8')) as InitRecord
}

export function writeRecord(home: string, record: InitRecord): void {
  writeFileAtomic.sync(recordPath(home), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 })
}

export function removeRecord(home: string): void {
  rmSync(recordPath(home), { force: true })
}

/** sha256 of a file's bytes, or null when it does not exist. */
export function fileHash(path: string): string | null {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : null
}
