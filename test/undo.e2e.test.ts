/**
 * `svc undo` end to end (issue 27, part 3): a real daemon snapshots a temp repository before deciding a destructive
 * call and ledgers it; the destructive command then really runs (rewinding history, deleting files and `.git`); the
 * real CLI, run from the damaged workspace as a user would, puts files, refs and `.git` back. Also its refusals.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

const SVC = new URL('../cli/svc.sh', import.meta.url).pathname
let dir: string
let repo: string
let daemon: TestDaemon
const gitEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@b',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@b',
}
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv, encoding: 'utf8' }).trim()
const svc = (args: string[], cwd = repo) => spawnSync(SVC, args, { cwd, env: { PATH: process.env.PATH, SVC_HOME: daemon.home, HOME: dir }, encoding: 'utf8' })

describe('svc undo', () => {
  beforeAll(async () => {
    dir = tempDir('undo-')
    repo = join(dir, 'proj')
    mkdirSync(join(repo, 'src'), { recursive: true })
    writeFileSync(join(repo, 'README.md'), '# proj\n')
    writeFileSync(join(repo, 'src', 'app.py'), 'x = 1\n')
    git('init', '-q', '-b', 'main')
    git('add', '-A')
    git('commit', '-qm', 'one')
    writeFileSync(join(repo, 'src', 'app.py'), 'x = 2\n')
    git('commit', '-qam', 'two')
    daemon = await startTestDaemon({ env: { SVC_USER_HOME: dir } })
  }, 60_000)
  afterAll(async () => {
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('refuses, naming the reason, when there is no snapshot', () => {
    const none = svc(['undo'])
    expect(none.status).toBe(1)
    expect(none.stderr).toMatch(/no_snapshot: svc has no snapshot of .*proj/)
  })

  it('restores files, history and a deleted .git after a real destructive command', async () => {
    const head = git('rev-parse', 'HEAD')
    const session = await daemon.session()
    const command = 'git reset -q --hard HEAD~1 && rm -rf src .git'
    const res = await daemon.request('POST', '/v1/gates/check', { session_id: session, source: 'claude-code', cwd: repo, tool: 'Bash', input: { command } })
    expect(res.status).toBe(200)
    const snapshots = async () =>
      ((await daemon.request('GET', '/v1/ledger/entries?verdict=snapshot_taken')).body.entries as { leaf: { seq: number; type: string; facts: Record<string, string> } }[]).map(
        (e) => e.leaf,
      )
    const leaves = await snapshots()
    expect(leaves).toHaveLength(1)
    expect(leaves[0]).toMatchObject({ type: 'control', facts: { workspace: repo, head: 'ref: refs/heads/main', tool: 'Bash' } })
    // A read-only command takes none.
    await daemon.request('POST', '/v1/gates/check', { session_id: session, source: 'claude-code', cwd: repo, tool: 'Bash', input: { command: 'git status && ls src' } })
    expect(await snapshots()).toHaveLength(1)

    execFileSync('bash', ['-c', command], { cwd: repo, env: gitEnv })
    expect(existsSync(join(repo, '.git'))).toBe(false)

    const list = svc(['undo', '--list'])
    expect(list.stdout).toContain(`seq ${leaves[0]!.seq}`)
    const undo = svc(['undo'])
    expect(undo.stderr).toBe('')
    expect(undo.status).toBe(0)
    expect(undo.stdout).toMatch(/restored .*proj to snapshot \d+: 2 files, \.git recreated/)
    expect(git('rev-parse', 'HEAD')).toBe(head)
    expect(git('status', '--porcelain')).toBe('')
    expect(readFileSync(join(repo, 'src', 'app.py'), 'utf8')).toBe('x = 2\n')

    const wrong = svc(['undo', '--seq', '999999'])
    expect(wrong.status).toBe(1)
    expect(wrong.stderr).toMatch(/no_snapshot: no snapshot with seq 999999 of .*\(kept: \d+\)/)
    expect(svc(['undo', '--seq', 'last']).stderr).toMatch(/invalid_request: --seq/)
  }, 60_000)
})
