/**
 * The snapshot store against real git: an unchanged tree reuses its tree id (from its stat fingerprint, no git
 * process) and fetches nothing, git's collection keeps what snapshots name, the bound drops the
 * oldest snapshots and the refs only they used, and a restore brings back files, moved refs and a deleted `.git`.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../test/helpers/temp.ts'
import { readIndexPaths } from './index-file.ts'
import { restoreSnapshot } from './restore.ts'
import { SnapshotStore } from './store.ts'

let dir: string
let ws: string
let store: SnapshotStore
const sh = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: ws,
    env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' },
    encoding: 'utf8',
  }).trim()

beforeEach(() => {
  dir = tempDir('snap-')
  ws = join(dir, 'home', 'proj')
  mkdirSync(join(ws, 'src'), { recursive: true })
  writeFileSync(join(ws, 'README.md'), '# proj\n')
  writeFileSync(join(ws, 'src', 'app.py'), 'x = 1\n')
  writeFileSync(join(ws, '.gitignore'), '.env\n')
  writeFileSync(join(ws, '.env'), 'SECRET=1\n')
  sh('init', '-q', '-b', 'main')
  sh('add', '-A')
  sh('commit', '-qm', 'one')
  writeFileSync(join(ws, 'src', 'app.py'), 'x = 2\n')
  sh('commit', '-qam', 'two')
  store = new SnapshotStore(join(dir, 'svc'), 3)
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('snapshot store', () => {
  it('keeps the tree id of an unchanged tree and fetches refs only when they changed', async () => {
    const a = await store.capture(ws)
    const b = await store.capture(ws)
    expect(b.tree).toBe(a.tree)
    expect(b.git?.refsKey).toBe(a.git?.refsKey)
    expect(readdirSync(join(store.dirOf(ws), 'svc-fetched'))).toHaveLength(1)
    writeFileSync(join(ws, 'src', 'app.py'), 'x = 3\n')
    const c = await store.capture(ws)
    expect(c.tree).not.toBe(a.tree)
    sh('commit', '-qam', 'three')
    expect((await store.capture(ws)).git?.refsKey).not.toBe(a.git?.refsKey)
    // Ignored files are not in a snapshot.
    expect(execFileSync('git', ['--git-dir', store.dirOf(ws), 'ls-tree', '-r', '--name-only', a.tree], { encoding: 'utf8' })).not.toContain('.env')
  })

  it('reuses the tree of an unchanged work tree from its stat fingerprint, and sees every change git would', async () => {
    mkdirSync(join(ws, 'logs'))
    writeFileSync(join(ws, 'logs', 'a.log'), 'log\n')
    writeFileSync(join(ws, '.gitignore'), '.env\n*.log\nbuild/\n')
    mkdirSync(join(ws, 'build', 'out'), { recursive: true })
    const first = await store.capture(ws)
    expect(first.path).toBe('full')
    expect(existsSync(join(store.dirOf(ws), 'svc-fingerprint'))).toBe(false) // taken after the answer (settle)
    await store.settle(ws)
    // The fingerprint covers the index's files (read without git) and the directories git walks, not build/.
    const fp = JSON.parse(readFileSync(join(store.dirOf(ws), 'svc-fingerprint'), 'utf8')) as { paths: string[]; tree: string }
    expect(readIndexPaths(join(store.dirOf(ws), 'svc-index'))?.paths).toEqual(['.gitignore', 'README.md', 'src/app.py'])
    expect(fp.paths).toEqual(expect.arrayContaining(['', 'src', 'logs', '.gitignore', 'README.md', 'src/app.py']))
    expect(fp.paths).not.toContain('build')
    await new Promise((r) => setTimeout(r, 2100)) // past the racy window: the files are older than a new fingerprint
    expect((await store.capture(ws)).path).toBe('full') // this one's fingerprint trusts them
    const same = await store.capture(ws)
    expect(same).toMatchObject({ path: 'unchanged', tree: first.tree })
    writeFileSync(join(ws, 'build', 'out', 'x.js'), '1\n') // ignored: still unchanged
    expect((await store.capture(ws)).path).toBe('unchanged')
    // A new file in a directory that held only ignored files is in the next tree.
    writeFileSync(join(ws, 'logs', 'notes.txt'), 'n\n')
    const next = await store.capture(ws)
    expect(next.path).toBe('full')
    const names = execFileSync('git', ['--git-dir', store.dirOf(ws), 'ls-tree', '-r', '--name-only', next.tree], { encoding: 'utf8' })
    expect(names).toContain('logs/notes.txt')
    // Refs are read on the fast path too: a new commit with the tree untouched moves the snapshot's HEAD.
    await new Promise((r) => setTimeout(r, 2100))
    await store.capture(ws)
    const before = await store.capture(ws)
    sh('commit', '-q', '--allow-empty', '-m', 'empty')
    const moved = await store.capture(ws)
    expect(moved).toMatchObject({ path: 'unchanged', tree: before.tree })
    expect(moved.git?.refs['refs/heads/main']).toBe(sh('rev-parse', 'HEAD'))
    // Files edited in place (no directory changed) are read again alone, into the tree a full pass would give.
    writeFileSync(join(ws, 'src', 'app.py'), 'x = 42\n')
    writeFileSync(join(ws, 'README.md'), '# proj, edited\n')
    const edited = await store.capture(ws)
    expect(edited.path).toBe('files')
    expect(edited.tree).toBe((await new SnapshotStore(join(dir, 'svc2')).capture(ws)).tree)
    // Just edited, so racy: read again next time, until they are older than the racy window.
    expect((await store.capture(ws)).path).toBe('files')
    // An edited ignore file changes which files the tree holds: a full pass.
    writeFileSync(join(ws, '.gitignore'), '.env\n*.log\nbuild/\nREADME.md\n')
    expect((await store.capture(ws)).path).toBe('full')
    // A nested repository takes the fast path away (its commits change the tree behind any stat of ours).
    mkdirSync(join(ws, 'vendor'))
    sh('init', '-q', 'vendor')
    sh('-C', 'vendor', 'commit', '-q', '--allow-empty', '-m', 'v')
    await store.capture(ws)
    await store.settle(ws)
    expect(existsSync(join(store.dirOf(ws), 'svc-fingerprint'))).toBe(false)
  })

  it("keeps a snapshot's tree and .git files through git's collection", async () => {
    writeFileSync(join(ws, 'README.md'), 'not committed\n') // a tree no commit of the project has
    const m = await store.commit(await store.capture(ws), 1)
    writeFileSync(join(ws, 'README.md'), 'changed\n')
    await store.capture(ws) // the private index moves on: the first tree is reached only through the snapshot
    execFileSync('git', ['--git-dir', store.dirOf(ws), '-c', 'gc.packRefs=false', 'gc', '--quiet', '--prune=now'])
    rmSync(join(ws, 'README.md'))
    await restoreSnapshot(store.dirOf(ws), m)
    expect(readFileSync(join(ws, 'README.md'), 'utf8')).toBe('not committed\n')
  })

  it('keeps the newest `keep` snapshots and drops the refs only the dropped ones used', async () => {
    for (let seq = 1; seq <= 5; seq++) {
      writeFileSync(join(ws, 'n.txt'), `${seq}\n`)
      sh('add', 'n.txt')
      sh('commit', '-qm', `c${seq}`)
      await store.commit(await store.capture(ws), seq)
      await store.prune(ws)
    }
    const kept = await store.list(ws)
    expect(kept.map((m) => m.seq)).toEqual([3, 4, 5])
    const refs = execFileSync('git', ['--git-dir', store.dirOf(ws), 'for-each-ref', '--format=%(refname)', 'refs/svc-refs/'], { encoding: 'utf8' })
    expect(
      new Set(
        refs
          .split('\n')
          .filter(Boolean)
          .map((r) => r.split('/')[2]),
      ),
    ).toEqual(new Set(kept.map((m) => m.git?.refsKey)))
    expect(() => new SnapshotStore(dir, 0)).toThrow(/SVC_SNAPSHOT_KEEP .* positive integer, not 0/)
  })

  it('restores files, moved refs and config, and a deleted .git', async () => {
    const head = sh('rev-parse', 'HEAD')
    const m = await store.commit(await store.capture(ws), 7)
    // The harm: history rewound, a file deleted, a hook and a config entry planted.
    sh('reset', '-q', '--hard', 'HEAD~1')
    rmSync(join(ws, 'README.md'))
    writeFileSync(join(ws, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho evil\n', { mode: 0o755 })
    sh('config', 'core.fsmonitor', 'sh -c evil')
    const r = await restoreSnapshot(store.dirOf(ws), m)
    expect(r.gitDir).toBe('refs')
    expect(sh('rev-parse', 'HEAD')).toBe(head)
    expect(readFileSync(join(ws, 'README.md'), 'utf8')).toBe('# proj\n')
    expect(readFileSync(join(ws, 'src', 'app.py'), 'utf8')).toBe('x = 2\n')
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).not.toContain('fsmonitor')
    expect(sh('status', '--porcelain')).toBe('')

    // `.git` emptied but for its config and hooks (what a sandbox keeps read-only), the tree deleted.
    for (const name of readdirSync(join(ws, '.git'))) if (name !== 'config' && name !== 'hooks') rmSync(join(ws, '.git', name), { recursive: true })
    rmSync(join(ws, 'src'), { recursive: true })
    expect((await restoreSnapshot(store.dirOf(ws), m)).gitDir).toBe('refs')
    expect(sh('rev-parse', 'HEAD')).toBe(head)
    expect(sh('status', '--porcelain')).toBe('')

    // `.git` deleted whole, and the tree with it.
    rmSync(join(ws, '.git'), { recursive: true })
    rmSync(join(ws, 'src'), { recursive: true })
    const again = await restoreSnapshot(store.dirOf(ws), m)
    expect(again.gitDir).toBe('recreated')
    expect(sh('rev-parse', 'HEAD')).toBe(head)
    expect(sh('log', '--format=%s')).toBe('two\none')
    expect(sh('status', '--porcelain')).toBe('')
    expect(readFileSync(join(ws, '.env'), 'utf8')).toBe('SECRET=1\n')
    expect(readdirSync(join(dir, 'home')).filter((n) => n.startsWith('.svc-undo-'))).toEqual([])
  })
})
