/**
 * The snapshot store: one bare git repository per workspace under `$SVC_HOME/snapshots/<hash of the path>.git`,
 * where the agent cannot write (svc's home is unwritable and unreadable inside the sandbox, and the gates protect
 * it). git is only the object store: the work tree goes in through a private index kept beside the repository, and
 * a stat fingerprint of what the last tree covered (fingerprint.ts) lets an unchanged tree be reused with no git
 * process at all, and an in-place edit re-read alone; the project's refs are fetched into
 * `refs/svc-refs/<digest of HEAD and refs>/` only when they changed since the last snapshot; a snapshot itself is
 * a small manifest blob named by the ledger seq of its leaf (`refs/svc-snapshots/<seq>`), its tree and `.git` files
 * kept from git's collection by `refs/svc-keep/<seq>`. The newest `keep`
 * snapshots of a workspace are kept; older ones and the refs only they used are dropped, and git's own
 * collection (`gc --prune=1.hour.ago`, never packing refs) takes back their objects.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { changedFiles, excludedDirs, restat, takeFingerprint, walkWorkTree, type Fingerprint } from './fingerprint.ts'
import { FingerprintFile } from './fingerprint-file.ts'
import { git, writeBlob, writeTree } from './git.ts'
import { readGitDir, type GitDirState } from './git-dir.ts'
import { readIndexPaths } from './index-file.ts'

/** What one snapshot records (the manifest blob, JSON). */
export interface SnapshotManifest {
  readonly v: 1
  readonly seq: number
  readonly workspace: string
  readonly at: number
  /** The work tree (tracked and untracked files, minus what the project's ignore files exclude). */
  readonly tree: string
  /** The project's `.git`, when it is a directory: HEAD, refs, and the blob holding config, hooks, info/. */
  readonly git?: { readonly head: string; readonly refs: Readonly<Record<string, string>>; readonly refsKey: string; readonly files: string }
}

/** A capture not yet named by a ledger seq. */
export interface Capture {
  readonly workspace: string
  readonly tree: string
  readonly git?: GitDirState & { readonly filesBlob: string }
  readonly ms: number
  /**
   * How the tree was found: `unchanged`, the stat fingerprint of the last snapshot held and its tree was reused with
   * no git process; `files`, only some files' stats changed and only they were read again; `full`, git read it all.
   */
  readonly path: 'unchanged' | 'files' | 'full'
}

/** Up to this many changed files are read again alone; more, and one full pass of git is cheaper. */
const FEW_FILES = 64

export const DEFAULT_KEEP = 30
const GC_EVERY_MS = 10 * 60_000

/** The store directory of a workspace: a hash of its absolute path, so svc finds it even when `.git` is gone. */
export function storeDirOf(home: string, workspace: string): string {
  return join(home, 'snapshots', `${createHash('sha256').update(workspace).digest('hex').slice(0, 16)}.git`)
}

export class SnapshotStore {
  readonly home: string
  readonly keep: number
  #lastGc = 0
  readonly #fingerprints = new FingerprintFile()
  /** Per store directory, the fingerprint a capture left to take after the answer (settle). */
  readonly #pending = new Map<string, () => void | Promise<void>>()

  constructor(home: string, keep: number = DEFAULT_KEEP) {
    this.home = home
    this.keep = keep
    if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`SVC_SNAPSHOT_KEEP (snapshots kept per workspace) must be a positive integer, not ${keep}`)
  }

  dirOf(workspace: string): string {
    return storeDirOf(this.home, workspace)
  }

  async #open(workspace: string): Promise<string> {
    const dir = this.dirOf(workspace)
    if (!existsSync(join(dir, 'svc-workspace'))) {
      mkdirSync(join(this.home, 'snapshots'), { recursive: true, mode: 0o700 })
      await git(['init', '-q', '--bare', dir])
      writeFileSync(join(dir, 'svc-workspace'), `${workspace}\n`)
    }
    return dir
  }

  /** Records the work tree and `.git` of `workspace` (an absolute path) in the store; name it with `commit`. */
  async capture(workspace: string): Promise<Capture> {
    const started = performance.now()
    const dir = await this.#open(workspace)
    await this.settle(workspace)
    const last = this.#fingerprints.read(dir)
    const changed = last && changedFiles(workspace, last, FEW_FILES)
    let path: Capture['path'] = !changed ? 'full' : changed.length ? 'files' : 'unchanged'
    // A failed partial update (a changed file now unreadable) leaves the index to the full pass, which skips such a file.
    const full = () => {
      path = 'full'
      return this.#addTree(dir, workspace)
    }
    const tree = path === 'unchanged' ? last!.tree : path === 'files' ? await this.#updateTree(dir, workspace, last!, changed!).catch(full) : await full()
    const state = readGitDir(workspace)
    if (!state) return { workspace, tree, ms: performance.now() - started, path }
    const marker = join(dir, 'svc-fetched', state.refsKey)
    if (!existsSync(marker)) {
      const specs = [`+refs/*:refs/svc-refs/${state.refsKey}/*`]
      if (/^[0-9a-f]{40,64}$/.test(state.head)) specs.push(`+HEAD:refs/svc-refs/${state.refsKey}/HEAD`)
      const hasRefs = Object.values(state.refs).some((v) => !v.startsWith('ref:')) || specs.length > 1
      if (hasRefs) {
        const source = join(workspace, '.git')
        await git(['--git-dir', dir, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--update-head-ok', source, ...specs])
      }
      mkdirSync(join(dir, 'svc-fetched'), { recursive: true })
      writeFileSync(marker, '')
    }
    const filesBlob = writeBlob(dir, Buffer.from(JSON.stringify(state.files)))
    return { workspace, tree, git: { ...state, filesBlob }, ms: performance.now() - started, path }
  }

  // Only files changed, none was added or removed (every directory kept its stat): those files alone into the index.
  async #updateTree(dir: string, workspace: string, last: Fingerprint, changed: readonly number[]): Promise<string> {
    this.#fingerprints.drop(dir)
    const since = this.#fingerprints.now(dir)
    const indexFile = join(dir, 'svc-index')
    const paths = changed.map((i) => last.paths[i]!)
    // --literal-pathspecs: a file named `*.py` is that file, not a pattern.
    await git(['-C', workspace, '--literal-pathspecs', '--git-dir', dir, '--work-tree', workspace, 'add', '--', ...paths], { indexFile })
    const tree = await this.#treeOf(dir, indexFile)
    this.#pending.set(dir, () => this.#fingerprints.write(dir, restat(workspace, last, tree, changed, since)))
    return tree
  }

  /**
   * Takes the fingerprint the last capture of `workspace` left, off the check path (the daemon runs it after the
   * answer, in the workspace's queue; the next capture runs it first if not). Taken late it is still true: whatever
   * changed after the capture's time is newer than the fingerprint's time, so racy, so changed. Never throws: without
   * a fingerprint the next capture runs git.
   */
  async settle(workspace: string): Promise<void> {
    const dir = this.dirOf(workspace)
    const task = this.#pending.get(dir)
    this.#pending.delete(dir)
    try {
      await task?.()
    } catch {
      this.#fingerprints.drop(dir)
    }
  }

  // The full path: the work tree into the private index and a tree, then the fingerprint of what that tree covers.
  // Its time is taken first, so whatever changes while git reads the tree is newer than it: racy, so changed.
  async #addTree(dir: string, workspace: string): Promise<string> {
    this.#fingerprints.drop(dir)
    const since = this.#fingerprints.now(dir)
    const indexFile = join(dir, 'svc-index')
    // -C: paths relative to the top of the work tree, wherever the daemon runs.
    const at = ['-C', workspace, '--git-dir', dir, '--work-tree', workspace]
    let complete = true
    await git([...at, 'add', '-A', '--ignore-errors', '--', '.'], { indexFile }).catch((err: Error) => {
      // --ignore-errors still exits 1 after skipping an unreadable file: the rest is in the index.
      if (!/unable to index|permission denied|could not open/i.test(err.message)) throw err
      complete = false
    })
    const tree = await this.#treeOf(dir, indexFile)
    this.#pending.set(dir, async () => {
      // What git does not descend into (ignored directories): the fingerprint need not watch them.
      const ignored = await git([...at, 'ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], { indexFile })
      const index = readIndexPaths(indexFile)
      const walked = walkWorkTree(workspace, excludedDirs(ignored))
      // A skipped file, a nested repository or an unreadable index: no fingerprint, so the next capture runs git again.
      if (complete && index && !index.gitlinks && !walked.nested) this.#fingerprints.write(dir, takeFingerprint(workspace, tree, [...walked.entries, ...index.paths], since))
    })
    return tree
  }

  // git rewrites an index (lock file, rename: a new inode) only when it changed, so an index that is the same file as
  // after the last write-tree holds the same tree: an unchanged work tree costs one git process, not two.
  async #treeOf(dir: string, indexFile: string): Promise<string> {
    const stamp = () => {
      const st = statSync(indexFile, { bigint: true })
      return `${st.ino}:${st.mtimeNs}:${st.size}`
    }
    const memo = join(dir, 'svc-tree')
    const [before, cached] = existsSync(memo) ? readFileSync(memo, 'utf8').split(' ') : []
    if (cached && before === stamp()) return cached.trim()
    const tree = (await git(['--git-dir', dir, 'write-tree'], { indexFile })).trim()
    writeFileSync(memo, `${stamp()} ${tree}`)
    return tree
  }

  /** Names a capture by the ledger seq of its leaf. */
  async commit(capture: Capture, seq: number, at = Date.now()): Promise<SnapshotManifest> {
    const dir = this.dirOf(capture.workspace)
    const g = capture.git
    const manifest: SnapshotManifest = {
      v: 1,
      seq,
      workspace: capture.workspace,
      at,
      tree: capture.tree,
      ...(g ? { git: { head: g.head, refs: g.refs, refsKey: g.refsKey, files: g.filesBlob } } : {}),
    }
    const id = writeBlob(dir, Buffer.from(JSON.stringify(manifest)))
    // git's collection keeps only what a ref reaches, and a manifest names its tree and files only in its text.
    const keep = writeTree(dir, { manifest: { id, tree: false }, work: { id: capture.tree, tree: true }, ...(g ? { files: { id: g.filesBlob, tree: false } } : {}) })
    for (const [refs, target] of [
      ['svc-keep', keep],
      ['svc-snapshots', id],
    ] as const) {
      mkdirSync(join(dir, 'refs', refs), { recursive: true })
      writeFileSync(join(dir, 'refs', refs, String(seq)), `${target}\n`)
    }
    return manifest
  }

  /** The snapshots of `workspace`, oldest first. */
  async list(workspace: string): Promise<SnapshotManifest[]> {
    const dir = this.dirOf(workspace)
    return existsSync(join(dir, 'svc-workspace')) ? manifestsIn(dir) : []
  }

  /**
   * Drops the snapshots of `workspace` beyond `keep` and the refs only they used; true when git's collection is due
   * (`collect`). Run it where captures of the workspace are serialised: a capture may be about to reuse those refs.
   */
  async prune(workspace: string): Promise<boolean> {
    const dir = this.dirOf(workspace)
    if (snapshotSeqs(dir).length <= this.keep) return false
    const all = await manifestsIn(dir)
    const drop = all.slice(0, all.length - this.keep)
    const kept = new Set(all.slice(-this.keep).flatMap((m) => (m.git ? [m.git.refsKey] : [])))
    for (const m of drop) for (const refs of ['svc-snapshots', 'svc-keep']) rmSync(join(dir, 'refs', refs, String(m.seq)), { force: true })
    for (const key of new Set(drop.flatMap((m) => (m.git && !kept.has(m.git.refsKey) ? [m.git.refsKey] : [])))) {
      rmSync(join(dir, 'svc-fetched', key), { force: true })
      const refs = (await git(['--git-dir', dir, 'for-each-ref', '--format=%(refname)', `refs/svc-refs/${key}/`])).split('\n').filter(Boolean)
      if (refs.length) await git(['--git-dir', dir, 'update-ref', '--stdin'], { input: refs.map((r) => `delete ${r}\n`).join('') })
    }
    return Date.now() - this.#lastGc > GC_EVERY_MS
  }

  /**
   * git's collection of what no kept snapshot reaches; safe beside captures (objects younger than an hour stay, and
   * the private index's, which the next capture builds on, are reached through it).
   */
  async collect(workspace: string): Promise<void> {
    this.#lastGc = Date.now()
    const dir = this.dirOf(workspace)
    await git(['--git-dir', dir, '-c', 'gc.packRefs=false', 'gc', '--quiet', '--prune=1.hour.ago'], { indexFile: join(dir, 'svc-index') })
  }
}

function snapshotSeqs(dir: string): number[] {
  try {
    return readdirSync(join(dir, 'refs', 'svc-snapshots'))
      .filter((n) => /^(0|[1-9][0-9]*)$/.test(n))
      .map(Number)
      .sort((a, b) => a - b)
  } catch {
    return []
  }
}

/** Every manifest in the store at `dir`, oldest first (one `cat-file --batch` for all). */
export async function manifestsIn(dir: string): Promise<SnapshotManifest[]> {
  const seqs = snapshotSeqs(dir)
  if (seqs.length === 0) return []
  const ids = seqs.map((s) => readFileSync(join(dir, 'refs', 'svc-snapshots', String(s)), 'utf8').trim())
  const out = await git(['--git-dir', dir, 'cat-file', '--batch'], { input: `${ids.join('\n')}\n` })
  const manifests: SnapshotManifest[] = []
  let rest = out
  for (const _ of ids) {
    const header = /^([0-9a-f]+) blob (\d+)\n/.exec(rest)
    if (!header) break
    const start = header[0].length
    const body = Buffer.from(rest.slice(start)).subarray(0, Number(header[2])).toString('utf8')
    manifests.push(JSON.parse(body) as SnapshotManifest)
    rest = rest.slice(start + body.length + 1)
  }
  return manifests
}
