/**
 * The repository a git command works on, found as git finds it (see git-dir.ts): a linked worktree (a real
 * `git worktree add`) and a submodule read the config and hooks of the directory their `.git` file points to,
 * `--git-dir` and `GIT_DIR` are followed, and what only run time can tell is opaque config.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { analyzeCommand } from './analyze.ts'
import { loadBashParser, type BashParser } from './parser.ts'

let parser: BashParser
let home: string
let main: string
let worktree: string
beforeAll(async () => {
  parser = await loadBashParser()
  home = mkdtempSync(join(tmpdir(), 'svc-git-dir-'))
  main = join(home, 'proj')
  worktree = join(home, 'proj-feature')
  mkdirSync(main)
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=dev@example.com', '-c', 'user.name=dev', ...args], { cwd, env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'pipe' })
  git(main, 'init', '-q', '-b', 'main')
  git(main, 'commit', '-q', '--allow-empty', '-m', 'start')
  git(main, 'worktree', 'add', '-q', worktree)
  // Planted by earlier calls, through the worktree: git writes both into the main checkout's .git.
  git(worktree, 'config', 'alias.ship', 'push --force origin main')
  writeFileSync(join(main, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nrm -rf ~\n', { mode: 0o755 })
  writeFileSync(join(main, '.git', 'worktrees', 'proj-feature', 'config.worktree'), '[core]\n\tsshCommand = curl -s http://127.0.0.1:7878/v1/mode\n')
  // A submodule's checkout: its .git file points into the superproject's .git/modules.
  mkdirSync(join(main, '.git', 'modules', 'lib', 'hooks'), { recursive: true })
  writeFileSync(join(main, '.git', 'modules', 'lib', 'HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(join(main, '.git', 'modules', 'lib', 'hooks', 'pre-push'), '#!/bin/sh\nsvc mode monitor\n')
  mkdirSync(join(main, 'lib'))
  writeFileSync(join(main, 'lib', '.git'), 'gitdir: ../.git/modules/lib\n')
  // Elsewhere: a git directory an earlier call prepared, with a hook.
  mkdirSync(join(home, 'other', 'hooks'), { recursive: true })
  writeFileSync(join(home, 'other', 'HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(join(home, 'other', 'hooks', 'pre-commit'), '#!/bin/sh\nsvc mode monitor\n')
})
afterAll(() => rmSync(home, { recursive: true, force: true }))

const run = (raw: string, cwd = worktree) => analyzeCommand(raw, { parser, home, cwd })
const texts = (raw: string, cwd = worktree) => run(raw, cwd).commands.map((c) => c.text)

describe('a linked worktree', () => {
  it('resolves an alias from the config it shares with the main checkout', () => {
    expect(texts('git ship')).toContain('git push --force origin main')
    expect(texts('git ship', main)).toContain('git push --force origin main')
  })

  it('runs the hooks of the shared git directory', () => {
    expect(texts('git commit -m wip')).toContain(`rm -rf ${home}`)
  })

  it("reads the worktree's own config.worktree", () => {
    expect(texts('git fetch')).toContain('curl -s http://127.0.0.1:7878/v1/mode')
  })

  it('prints its own top directory for rev-parse --show-toplevel, so a script run there is read', () => {
    writeFileSync(join(worktree, 'deploy.sh'), '#!/bin/sh\nrm -rf ~\n')
    mkdirSync(join(worktree, 'src'), { recursive: true })
    const r = run('cd "$(git rev-parse --show-toplevel)" && ./deploy.sh', join(worktree, 'src'))
    expect(r.commands.map((c) => c.text)).toContain(`rm -rf ${home}`)
    expect(r.signals).not.toContain('unanalysable_script')
  })
})

describe('other ways git finds its directory', () => {
  it("follows a submodule's .git file to its hooks", () => {
    expect(texts('git push', join(main, 'lib'))).toContain('svc mode monitor')
    expect(texts('git -C lib push', main)).toContain('svc mode monitor')
  })

  it('follows --git-dir and GIT_DIR when their value is known', () => {
    expect(texts(`git --git-dir=${home}/other commit -m x`, main)).toContain('svc mode monitor')
    expect(texts(`git --git-dir ${home}/other commit -m x`, main)).toContain('svc mode monitor')
    expect(texts(`GIT_DIR=${home}/other git commit -m x`, main)).toContain('svc mode monitor')
    expect(texts(`export GIT_DIR=../other; git commit -m x`, main)).toContain('svc mode monitor')
  })

  it('takes a directory laid out as a git directory (HEAD, objects/, refs/) as the bare repository git sees there', () => {
    const bare = join(home, 'x.git')
    for (const d of ['objects', 'refs', 'hooks']) mkdirSync(join(bare, d), { recursive: true })
    writeFileSync(join(bare, 'HEAD'), 'ref: refs/heads/main\n')
    writeFileSync(join(bare, 'config'), '[alias]\n\tp = !rm -rf ~\n[core]\n\tpager = svc mode monitor\n')
    writeFileSync(join(bare, 'hooks', 'pre-push'), '#!/bin/sh\ngit push --force origin main\n')
    expect(texts('git p', bare)).toContain(`rm -rf ${home} $@`)
    expect(texts('git log', join(bare, 'refs'))).toContain('svc mode monitor')
    expect(texts('git push', bare)).toContain('git push --force origin main')
    // Laid out and used in one command: the HEAD it writes is enough.
    const made = "mkdir -p y/objects y/refs && echo 'ref: refs/heads/main' > y/HEAD && printf '[alias]\\n\\tp = !rm -rf ~\\n' > y/config && cd y && git p"
    expect(texts(made, home)).toContain(`rm -rf ${home} $@`)
    // A HEAD file alone is no repository to git.
    mkdirSync(join(home, 'notes'), { recursive: true })
    writeFileSync(join(home, 'notes', 'HEAD'), 'ref: refs/heads/main\n')
    writeFileSync(join(home, 'notes', 'config'), '[alias]\n\tp = !rm -rf ~\n')
    expect(texts('git p', join(home, 'notes'))).not.toContain(`rm -rf ${home} $@`)
  })

  it('is opaque config where only run time knows the directory, or the .git file is no pointer', () => {
    expect(run('GIT_DIR="$(cat d)" git status', main).signals).toContain('opaque_config')
    expect(run('git --git-dir="$X" status', main).signals).toContain('opaque_config')
    expect(run('git -C "$(cat d)" commit -m x', main).signals).toContain('opaque_config')
    mkdirSync(join(home, 'odd'), { recursive: true })
    writeFileSync(join(home, 'odd', '.git'), 'not a pointer\n')
    expect(run('git status', join(home, 'odd')).signals).toContain('opaque_config')
  })

  it('stays quiet in an ordinary checkout and outside any repository', () => {
    expect(run('git status', main).signals).toEqual([])
    expect(run('git -C proj status', home).signals).toEqual([])
    expect(run('git status', tmpdir()).signals).toEqual([])
  })
})
