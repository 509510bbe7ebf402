/**
 * The stat fingerprint never calls a changed work tree unchanged: real files in a temp dir, each kind of change the
 * check path must see (an edit that keeps size and mtime, a same-size copy renamed in, a deletion, a new file in an
 * old or a new directory, a changed symlink, a removed `.git`, racy timestamps), and what it may ignore.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FingerprintFile } from './fingerprint-file.ts'
import { changedFiles, deserialise, excludedDirs, restat, serialise, takeFingerprint, unchanged, walkWorkTree, type Fingerprint } from './fingerprint.ts'

let root: string
let ws: string
// The files a snapshot's tree would hold (the store reads them from its index; here they are listed by hand).
const FILES = ['README.md', 'src/app.py', 'src/lib/util.py', 'link', '.gitignore']
// A time well after every file here was written: nothing is racy unless a test says so.
const later = () => BigInt(Date.now() + 60_000) * 1_000_000n
const OLD = 1_700_000_000 // a whole-second mtime, to put back exactly
const tick = () => new Promise((r) => setTimeout(r, 30)) // past the kernel's coarse timestamp tick

function fingerprint(since = later(), excluded = new Set(['node_modules'])): Fingerprint {
  const walked = walkWorkTree(ws, excluded)
  return takeFingerprint(ws, 'tree-id', [...walked.entries, ...FILES], since)
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'snap-fp-'))
  ws = join(root, 'proj')
  mkdirSync(join(ws, 'src', 'lib'), { recursive: true })
  mkdirSync(join(ws, 'node_modules', 'dep'), { recursive: true })
  mkdirSync(join(ws, '.git', 'refs', 'heads'), { recursive: true })
  mkdirSync(join(ws, 'logs')) // holds only ignored files: git walks it, so it is watched
  writeFileSync(join(ws, 'README.md'), '# proj\n')
  writeFileSync(join(ws, 'src', 'app.py'), 'x = 1\n')
  writeFileSync(join(ws, 'src', 'lib', 'util.py'), 'y = 1\n')
  writeFileSync(join(ws, '.gitignore'), 'node_modules/\n*.log\n')
  writeFileSync(join(ws, 'logs', 'a.log'), 'log\n')
  writeFileSync(join(ws, 'node_modules', 'dep', 'index.js'), '1\n')
  symlinkSync('src/app.py', join(ws, 'link'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('stat fingerprint', () => {
  it('finds an untouched tree unchanged, and survives its file', () => {
    const fp = fingerprint()
    expect(fp.paths).toEqual(expect.arrayContaining(['', 'src', 'src/lib', 'logs', ...FILES]))
    expect(fp.paths).not.toContain('node_modules')
    expect(unchanged(ws, fp)).toBe(true)
    expect(unchanged(ws, deserialise(serialise(fp))!)).toBe(true)
    expect(deserialise('{"v":2,"tree":"t","paths":["a"],"stats":""}')).toBeUndefined()
    expect(deserialise('not json')).toBeUndefined()
  })

  it('treats an entry not older than the fingerprint itself as changed (racy, as in git)', () => {
    const files = new FingerprintFile()
    const now = files.now(root)
    expect(unchanged(ws, fingerprint(now))).toBe(false)
    // Every file written a while before the fingerprint's time: trusted.
    expect(unchanged(ws, fingerprint(now + 10_000_000_000n))).toBe(true)
  })

  it('sees an edit that keeps the size and puts the mtime back (ctime)', async () => {
    const path = join(ws, 'src', 'app.py')
    utimesSync(path, OLD, OLD) // whole seconds: put back exactly below
    const fp = fingerprint()
    await tick()
    writeFileSync(path, 'x = 2\n')
    utimesSync(path, OLD, OLD)
    expect(statSync(path).mtimeMs).toBe(OLD * 1000)
    expect(unchanged(ws, fp)).toBe(false)
  })

  it('sees a file replaced by a same-size copy with the same mtime (inode)', () => {
    const path = join(ws, 'src', 'app.py')
    utimesSync(path, OLD, OLD)
    // The file alone (its directory's mtime would see the rename too).
    const fp = takeFingerprint(ws, 't', ['src/app.py'], later())
    const copy = join(ws, 'src', 'app.py.new')
    writeFileSync(copy, 'x = 9\n')
    utimesSync(copy, OLD, OLD)
    renameSync(copy, path)
    expect(unchanged(ws, fp)).toBe(false)
  })

  it('sees a deleted file', () => {
    const fp = fingerprint()
    rmSync(join(ws, 'src', 'lib', 'util.py'))
    expect(unchanged(ws, fp)).toBe(false)
  })

  it('sees a new file in an existing directory, in a new directory, and in one holding only ignored files', async () => {
    for (const make of [
      () => writeFileSync(join(ws, 'src', 'lib', 'new.py'), 'n\n'),
      () => mkdirSync(join(ws, 'src', 'lib', 'pkg', 'deep'), { recursive: true }),
      () => writeFileSync(join(ws, 'logs', 'notes.txt'), 'n\n'),
    ]) {
      const fp = fingerprint()
      await tick()
      make()
      expect(unchanged(ws, fp)).toBe(false)
    }
  })

  it('sees a changed symlink and a directory put where a file was', async () => {
    let fp = fingerprint()
    symlinkSync('README.md', join(ws, 'link.tmp'))
    renameSync(join(ws, 'link.tmp'), join(ws, 'link'))
    expect(unchanged(ws, fp)).toBe(false)
    fp = fingerprint()
    rmSync(join(ws, 'src', 'lib', 'util.py'))
    mkdirSync(join(ws, 'src', 'lib', 'util.py'))
    expect(unchanged(ws, fp)).toBe(false)
  })

  it('watches the directory, not the link, when the workspace path is a symlink', async () => {
    const link = join(root, 'via-link')
    symlinkSync(ws, link)
    const fp = takeFingerprint(link, 't', walkWorkTree(link, new Set()).entries, later())
    expect(unchanged(link, fp)).toBe(true)
    await tick()
    writeFileSync(join(ws, 'TOP.md'), 'new\n')
    expect(unchanged(link, fp)).toBe(false)
  })

  it('sees a removed .git and an edited ignore file that ignores itself', async () => {
    let fp = fingerprint()
    await tick()
    rmSync(join(ws, '.git'), { recursive: true })
    expect(unchanged(ws, fp)).toBe(false)
    writeFileSync(join(ws, 'src', '.gitignore'), '.gitignore\n')
    fp = takeFingerprint(ws, 't', walkWorkTree(ws, new Set()).entries, later())
    await tick()
    writeFileSync(join(ws, 'src', '.gitignore'), '.gitignore\n*.py\n')
    expect(unchanged(ws, fp)).toBe(false)
  })

  it('ignores what git does not see: an excluded directory and .git (refs are read, not stat-ed)', async () => {
    const fp = fingerprint()
    await tick()
    writeFileSync(join(ws, 'node_modules', 'dep', 'new.js'), '2\n')
    writeFileSync(join(ws, '.git', 'refs', 'heads', 'main'), 'a'.repeat(40))
    expect(unchanged(ws, fp)).toBe(true)
  })

  it('names files edited in place for a partial update, and asks for a full pass when entries came or went', async () => {
    const fp = fingerprint()
    expect(changedFiles(ws, fp, 8)).toEqual([])
    await tick()
    writeFileSync(join(ws, 'src', 'app.py'), 'x = 22\n')
    writeFileSync(join(ws, 'README.md'), '# edited\n')
    const changed = changedFiles(ws, fp, 8)!
    expect(changed.map((i) => fp.paths[i]).sort()).toEqual(['README.md', 'src/app.py'])
    expect(changedFiles(ws, fp, 1)).toBeUndefined() // more than the limit: a full pass is cheaper
    const next = restat(ws, fp, 'tree-2', changed, later())
    expect(next.tree).toBe('tree-2')
    expect(unchanged(ws, next)).toBe(true)
    // Racy when read again just now: named again next time.
    expect(changedFiles(ws, restat(ws, fp, 't', changed, new FingerprintFile().now(root)), 8)).toHaveLength(2)
    await tick()
    writeFileSync(join(ws, '.gitignore'), 'node_modules/\n')
    expect(changedFiles(ws, next, 8)).toBeUndefined() // the ignore rules changed
    const again = fingerprint()
    await tick()
    writeFileSync(join(ws, 'src', 'new.py'), 'n\n')
    expect(changedFiles(ws, again, 8)).toBeUndefined() // src/ changed: a new entry
  })

  it('flags a nested repository (its commits change the tree with no stat of ours)', () => {
    expect(walkWorkTree(ws, new Set()).nested).toBe(false)
    mkdirSync(join(ws, 'vendor', 'lib', '.git'), { recursive: true })
    expect(walkWorkTree(ws, new Set()).nested).toBe(true)
  })

  it("reads git's ignored-directory listing: only directories git did not descend into are excluded", () => {
    const listing = ['logs/', 'logs/a.log', 'node_modules/', 'a/', 'a/b/', 'a/b/x.log', 'a/c/', 'a-b/'].join('\0')
    expect([...excludedDirs(`${listing}\0`)].sort()).toEqual(['a-b', 'a/c', 'node_modules'])
  })

  it('keeps the fingerprint in the store and drops it with the index it describes', () => {
    const files = new FingerprintFile()
    const store = join(root, 'store')
    mkdirSync(store)
    expect(files.read(store)).toBeUndefined()
    const fp = fingerprint()
    files.write(store, fp)
    expect(files.read(store)).toBe(files.read(store)) // the memory copy, validated by one stat
    expect(new FingerprintFile().read(store)?.paths).toEqual(fp.paths)
    expect(JSON.parse(readFileSync(join(store, 'svc-fingerprint'), 'utf8')).tree).toBe('tree-id')
    files.drop(store)
    expect(files.read(store)).toBeUndefined()
  })
})
