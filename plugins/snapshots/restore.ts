/**
 * `svc undo`'s work: puts a workspace back as one snapshot recorded it — its files, `.git`'s refs and HEAD, config,
 * hooks and info/, and the whole `.git` when it is gone. Everything that can fail for want of data (checking the tree
 * out, fetching the objects) is done first, into a temporary directory beside the workspace (same file system, so
 * the files then move in by rename); only then is the workspace touched. A failure while moving in stops at once
 * and names what was restored and where the rest waits. Files created after the snapshot are left alone; ignored
 * files (never in a snapshot) are neither restored nor removed; the index is reset to HEAD (staged changes come
 * back as unstaged).
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { git } from './git.ts'
import { readGitDir, type GitDirFile } from './git-dir.ts'
import type { SnapshotManifest } from './store.ts'

export interface RestoreReport {
  readonly seq: number
  readonly files: number
  /** `recreated`: `.git` was gone and was rebuilt; `refs`: its refs, HEAD and config were put back; `none`: no `.git` kept. */
  readonly gitDir: 'recreated' | 'refs' | 'none'
  /** Refs that did not exist at the snapshot, removed, with the id each held (to recreate one by hand). */
  readonly removedRefs: readonly string[]
}

/** A restore that stopped after touching the workspace: what was done, and where the rest is. */
export class RestoreIncomplete extends Error {}

function rmIfNotDir(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) rmSync(path, { force: true })
  } catch {
    // absent
  }
}

/** Makes every parent of `rel` under `root` a directory (a file or link where a directory belongs is removed). */
function parentsOf(root: string, rel: string): void {
  const parts = rel.split('/').slice(0, -1)
  let at = root
  for (const part of parts) {
    at = join(at, part)
    rmIfNotDir(at)
  }
  mkdirSync(dirname(join(root, rel)), { recursive: true })
}

/** Writes config, description, hooks/ and info/ into `gitDir` exactly as kept (hooks and info not kept are removed). */
function writeKeptFiles(gitDir: string, files: Readonly<Record<string, GitDirFile>>): void {
  for (const dir of ['hooks', 'info']) rmSync(join(gitDir, dir), { recursive: true, force: true })
  for (const [rel, f] of Object.entries(files)) {
    parentsOf(gitDir, rel)
    const path = join(gitDir, rel)
    rmSync(path, { recursive: true, force: true })
    writeFileSync(path, Buffer.from(f.data, 'base64'), { mode: f.mode })
    chmodSync(path, f.mode)
  }
}

/** Fetches the snapshot's objects into `gitDir` (staging refs under refs/svc-undo/), then sets refs and HEAD exactly. */
async function putRefs(store: string, gitDir: string, m: NonNullable<SnapshotManifest['git']>): Promise<string[]> {
  const direct = Object.entries(m.refs).filter(([, v]) => !v.startsWith('ref:'))
  const detached = /^[0-9a-f]{40,64}$/.test(m.head)
  if (direct.length || detached) {
    await git(['--git-dir', gitDir, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--update-head-ok', store, `+refs/svc-refs/${m.refsKey}/*:refs/svc-undo/*`])
  }
  const now = readGitDir(dirname(gitDir))?.refs ?? {}
  const removed = Object.entries(now).filter(([name]) => !(name in m.refs) && !name.startsWith('refs/svc-undo/'))
  const staging = Object.keys(now).filter((n) => n.startsWith('refs/svc-undo/'))
  const fetched = (await git(['--git-dir', gitDir, 'for-each-ref', '--format=%(refname)', 'refs/svc-undo/'])).split('\n').filter(Boolean)
  const lines = [
    ...direct.map(([name, id]) => `update ${name} ${id}\n`),
    ...removed.filter(([, v]) => !v.startsWith('ref:')).map(([name]) => `delete ${name}\n`),
    ...[...new Set([...staging, ...fetched])].map((name) => `delete ${name}\n`),
  ]
  if (lines.length) await git(['--git-dir', gitDir, 'update-ref', '--no-deref', '--stdin'], { input: lines.join('') })
  for (const [name] of removed.filter(([, v]) => v.startsWith('ref:'))) rmSync(join(gitDir, name), { force: true })
  for (const [name, v] of Object.entries(m.refs).filter(([, v]) => v.startsWith('ref:'))) {
    parentsOf(gitDir, name)
    writeFileSync(join(gitDir, name), `${v}\n`)
  }
  writeFileSync(join(gitDir, 'HEAD'), `${m.head}\n`)
  return removed.map(([name, v]) => `${name} (was ${v})`)
}

/** Restores `m` into `m.workspace`, from the store repository at `store`. */
export async function restoreSnapshot(store: string, m: SnapshotManifest): Promise<RestoreReport> {
  const ws = m.workspace
  const parent = dirname(ws)
  mkdirSync(parent, { recursive: true })
  const tmp = mkdtempSync(join(parent, '.svc-undo-'))
  const done: string[] = []
  try {
    // 1. Nothing in the workspace is touched: the tree checked out, the kept .git files read, objects fetched.
    const work = join(tmp, 'work')
    mkdirSync(work)
    const indexFile = join(tmp, 'index')
    await git(['--git-dir', store, '--work-tree', work, 'read-tree', m.tree], { indexFile })
    await git(['--git-dir', store, '--work-tree', work, 'checkout-index', '-a', '-f'], { indexFile })
    const paths = (await git(['--git-dir', store, 'ls-files', '-z'], { indexFile })).split('\0').filter(Boolean)
    const files = m.git ? (JSON.parse(await git(['--git-dir', store, 'cat-file', 'blob', m.git.files])) as Record<string, GitDirFile>) : {}
    const gitDir = join(ws, '.git')
    const gitGone = !existsSync(gitDir)
    let built: string | undefined
    if (m.git && gitGone) {
      built = join(tmp, 'git')
      for (const d of ['objects', 'refs/heads', 'refs/tags']) mkdirSync(join(built, d), { recursive: true })
      writeFileSync(join(built, 'HEAD'), `${m.git.head}\n`)
      writeKeptFiles(built, files)
      await putRefs(store, built, m.git)
    }
    // 2. The workspace: .git first (so a stop leaves history whole), then the files.
    mkdirSync(ws, { recursive: true })
    let removedRefs: string[] = []
    if (built) {
      renameSync(built, gitDir)
      done.push('.git recreated')
    } else if (m.git && lstatSync(gitDir).isDirectory()) {
      done.push('.git config and hooks')
      writeKeptFiles(gitDir, files)
      // A `.git` emptied but for what could not be removed (a sandbox keeps config and hooks read-only) is a repository again.
      for (const d of ['objects', 'refs/heads', 'refs/tags']) mkdirSync(join(gitDir, d), { recursive: true })
      if (!existsSync(join(gitDir, 'HEAD'))) writeFileSync(join(gitDir, 'HEAD'), `${m.git.head}\n`)
      removedRefs = await putRefs(store, gitDir, m.git)
      done.push('.git refs and HEAD')
    }
    for (const rel of paths) {
      const dst = join(ws, rel)
      parentsOf(ws, rel)
      try {
        if (lstatSync(dst).isDirectory()) rmSync(dst, { recursive: true, force: true })
      } catch {
        // absent
      }
      renameSync(join(work, rel), dst)
    }
    done.push(`${paths.length} files`)
    if (m.git && existsSync(gitDir)) {
      await git(['--git-dir', gitDir, '--work-tree', ws, 'read-tree', 'HEAD']).catch(() => undefined)
      await git(['--git-dir', gitDir, '--work-tree', ws, 'update-index', '-q', '--refresh']).catch(() => undefined)
    }
    rmSync(tmp, { recursive: true, force: true })
    return { seq: m.seq, files: paths.length, gitDir: built ? 'recreated' : m.git ? 'refs' : 'none', removedRefs }
  } catch (err) {
    if (done.length === 0) {
      rmSync(tmp, { recursive: true, force: true })
      throw err
    }
    throw new RestoreIncomplete(`restore of snapshot ${m.seq} stopped after: ${done.join(', ')}; the rest is in ${tmp} (${(err as Error).message})`)
  }
}
