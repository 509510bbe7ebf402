/**
 * The paths in the store's private index, read without a git process: after `git add -A` they are exactly the files
 * of the snapshot's tree, which the stat fingerprint (fingerprint.ts) must cover. git's index format, versions 2 and
 * 3 (what git writes unless configured otherwise; the store's config never asks for 4).
 */
import { readFileSync } from 'node:fs'

export interface IndexPaths {
  readonly paths: readonly string[]
  /** An entry is a gitlink (a nested repository's commit): its change shows in no stat of the work tree. */
  readonly gitlinks: boolean
}

const GITLINK = 0o160000
const FIXED = 62 // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), a SHA-1 id (20), flags (2)

/** The paths of the index file at `file`, or undefined when it is not a version 2 or 3 index with SHA-1 ids. */
export function readIndexPaths(file: string): IndexPaths | undefined {
  let buf: Buffer
  try {
    buf = readFileSync(file)
  } catch {
    return undefined
  }
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined
  const version = buf.readUInt32BE(4)
  if (version !== 2 && version !== 3) return undefined
  const count = buf.readUInt32BE(8)
  const paths: string[] = []
  let gitlinks = false
  let at = 12
  for (let i = 0; i < count; i++) {
    if (at + FIXED > buf.length) return undefined
    const mode = buf.readUInt32BE(at + 24)
    const flags = buf.readUInt16BE(at + 60)
    const extended = version === 3 && (flags & 0x4000) !== 0
    const nameAt = at + FIXED + (extended ? 2 : 0)
    const end = buf.indexOf(0, nameAt)
    if (end < 0) return undefined
    paths.push(buf.toString('utf8', nameAt, end))
    if ((mode & 0o170000) === GITLINK) gitlinks = true
    // Entries are NUL-padded to a multiple of 8 bytes (at least one NUL).
    at += Math.floor((end - at + 8) / 8) * 8
  }
  return { paths, gitlinks }
}
