/**
 * Where a workspace's stat fingerprint is kept: `svc-fingerprint` in its store (svc's home, where the agent cannot
 * write, so it cannot forge an "unchanged" answer), read back through a memory copy that one stat of the file
 * validates (parsing it per call would cost more than the stats it saves). Also the file system's own clock, which
 * racy entries are judged by.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deserialise, serialise, type Fingerprint } from './fingerprint.ts'

const FILE = 'svc-fingerprint'
// Not ctime: a rename may set it. A new file is a new inode, so a rewrite cannot keep this stamp.
const stampOf = (st: { ino: bigint; mtimeNs: bigint; size: bigint }) => `${st.ino}:${st.mtimeNs}:${st.size}`

export class FingerprintFile {
  readonly #cache = new Map<string, { readonly stamp: string; readonly fp: Fingerprint }>()

  /** The fingerprint of the last full capture in the store at `dir`, if one was kept. */
  read(dir: string): Fingerprint | undefined {
    const file = join(dir, FILE)
    const st = statSync(file, { bigint: true, throwIfNoEntry: false })
    if (!st) return undefined
    const stamp = stampOf(st)
    const cached = this.#cache.get(dir)
    if (cached?.stamp === stamp) return cached.fp
    const fp = deserialise(readFileSync(file, 'utf8'))
    if (fp) this.#cache.set(dir, { stamp, fp })
    return fp
  }

  write(dir: string, fp: Fingerprint): void {
    const tmp = join(dir, `${FILE}.tmp-${process.pid}`)
    writeFileSync(tmp, serialise(fp), { mode: 0o600 })
    const st = statSync(tmp, { bigint: true })
    renameSync(tmp, join(dir, FILE))
    // What was just written needs no parsing back (rename keeps the inode, mtime and size; ctime may move: see stampOf).
    this.#cache.set(dir, { stamp: stampOf(st), fp })
  }

  /** Forgets the fingerprint before the private index changes (it describes the tree of the index it came with). */
  drop(dir: string): void {
    this.#cache.delete(dir)
    rmSync(join(dir, FILE), { force: true })
  }

  /** The file system's time now (ns), as it stamps files: written, then read back from a file in `dir`. */
  now(dir: string): bigint {
    const file = join(dir, 'svc-clock')
    writeFileSync(file, String(process.hrtime.bigint()))
    return statSync(file, { bigint: true }).mtimeNs
  }
}
