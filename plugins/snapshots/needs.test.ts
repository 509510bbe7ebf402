/** Which calls get a snapshot first: those that may change tracked work, or that svc cannot read; never a read. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EvalRequest, ShellCommand } from '../../core/index.ts'
import { snapshotTarget, workspaceOf } from './needs.ts'

const root = mkdtempSync(join(tmpdir(), 'snap-needs-'))
const ws = join(root, 'proj')
mkdirSync(join(ws, '.git'), { recursive: true })
mkdirSync(join(ws, 'src'))
writeFileSync(join(ws, 'src', 'a.py'), 'x\n')
afterAll(() => rmSync(root, { recursive: true, force: true }))

const cmd = (argv: string[], extra: Partial<ShellCommand> = {}): ShellCommand => ({ program: argv[0]!, argv, text: argv.join(' '), via: [], ...extra })
const bash = (commands: ShellCommand[], error?: string): EvalRequest => ({
  sessionId: 's',
  source: 'claude-code',
  tool: 'Bash',
  input: {},
  cwd: join(ws, 'src'),
  paths: [],
  urls: [],
  shell: { raw: '', commands, signals: [], ...(error ? { error } : {}) },
})

describe('snapshotTarget', () => {
  it('snapshots the work tree around the call before deleting, moving, rewriting or unreadable commands', () => {
    for (const c of [
      [cmd(['rm', '-rf', '.git'])],
      [cmd(['git', 'reset', '--hard', 'HEAD~2'])],
      [cmd(['git', 'branch', '-D', 'main'])],
      [cmd(['sed', '-i', 's/a/b/', 'a.py'])],
      [cmd(['find', '.', '-delete'])],
      [cmd(['echo', 'x'], { writes: [join(ws, 'README.md')] })],
      [cmd(['python3', '-c', 'import shutil'])],
      [cmd(['npm', 'test'])],
      [cmd(['git', 'config', 'core.fsmonitor', 'x'])],
    ])
      expect(snapshotTarget(bash(c)), c[0]!.text).toBe(ws)
    expect(snapshotTarget(bash([], 'over budget'))).toBe(ws)
  })

  it('takes none for commands that only read, or outside any git work tree', () => {
    for (const c of [
      [cmd(['ls', '-la'])],
      [cmd(['git', 'status'])],
      [cmd(['git', 'log', '-3']), cmd(['grep', 'x', 'a.py'])],
      [cmd(['sed', 's/a/b/', 'a.py'])],
      [cmd(['git', 'branch'])],
      [cmd(['cat', 'a'], { writes: ['/dev/null'] })],
    ])
      expect(snapshotTarget(bash(c)), c[0]!.text).toBeUndefined()
    expect(snapshotTarget({ ...bash([cmd(['rm', '-rf', 'x'])]), cwd: root })).toBeUndefined()
    expect(workspaceOf(undefined)).toBeUndefined()
  })

  it('snapshots before a file tool overwrites an existing file, not before it creates one', () => {
    const write = (path: string): EvalRequest => ({ sessionId: 's', source: 'claude-code', tool: 'Write', input: {}, paths: [path], urls: [] })
    expect(snapshotTarget(write(join(ws, 'src', 'a.py')))).toBe(ws)
    expect(snapshotTarget(write(join(ws, 'src', 'new.py')))).toBeUndefined()
    expect(snapshotTarget({ ...write(join(ws, 'src', 'a.py')), tool: 'Read' })).toBeUndefined()
  })
})
