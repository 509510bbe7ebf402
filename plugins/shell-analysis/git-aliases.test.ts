/**
 * git aliases as git resolves them: `git p` is analysed as the command the alias stands for, from the command
 * line, a `git config alias.*` earlier in the same command, the repository's config and the user's global
 * config (with includes); where git would read config svc does not see, the call is opaque config.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { analyzeCommand } from './analyze.ts'
import { splitAlias } from './git-aliases.ts'
import { loadBashParser, type BashParser } from './parser.ts'

let parser: BashParser
let home: string
let repo: string
beforeAll(async () => {
  parser = await loadBashParser()
  home = mkdtempSync(join(tmpdir(), 'svc-git-alias-'))
  repo = join(home, 'proj')
  mkdirSync(join(repo, '.git', 'hooks'), { recursive: true })
  writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(join(repo, '.git', 'config'), '[core]\n\tbare = false\n[alias]\n\tsync = push --force-with-lease\n\tnuke = !rm -rf\n')
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = dev\n[alias]\n\tpf = push -f\n\tst = status\n[include]\n\tpath = .gitaliases\n')
  writeFileSync(join(home, '.gitaliases'), '[alias]\n\twipe = reset --hard origin/main\n')
  writeFileSync(join(repo, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nrm -rf ~\n')
})
afterAll(() => rmSync(home, { recursive: true, force: true }))

const run = (raw: string) => analyzeCommand(raw, { parser, home, cwd: repo })
const texts = (raw: string) => run(raw).commands.map((c) => c.text)

describe('git aliases', () => {
  it.each([
    ["git -c alias.p='push --force' p origin main", 'git -c alias.p=push --force push --force origin main'],
    ['git -c alias.p=push p --force', 'git -c alias.p=push push --force'],
    ["git -c alias.p='push --force' -c alias.q=p q", 'git -c alias.p=push --force -c alias.q=p push --force'],
    ['git sync', 'git push --force-with-lease'],
    ['git pf origin main', 'git push -f origin main'],
    ['git wipe', 'git reset --hard origin/main'],
    ["git config alias.x 'push --force' && git x", 'git push --force'],
  ])('%s runs `%s`', (raw, expected) => {
    expect(texts(raw)).toContain(expected)
  })

  it('runs a `!` alias as shell with the arguments appended, from any config', () => {
    expect(texts('git nuke ~')).toContain(`rm -rf ${home}`)
    expect(texts("git -c alias.x='!rm -rf' x ~")).toContain(`rm -rf ${home}`)
  })

  it('ignores an alias named like a git command, as git does', () => {
    expect(texts("git -c alias.status='push --force' status")).not.toContain('git -c alias.status=push --force push --force')
    expect(run("git -c alias.status='push --force' status").signals).not.toContain('opaque_config')
  })

  it('reports config it cannot see as opaque, for an alias and for any config set through the environment', () => {
    for (const raw of [
      'HOME=/tmp/h git p',
      'XDG_CONFIG_HOME=/tmp/x git p',
      'GIT_CONFIG_GLOBAL=/tmp/x git p',
      'git --git-dir=/tmp/o/.git p',
      'env HOME=/tmp/h git p',
      'export HOME=$(mktemp -d); git p',
      'GIT_CONFIG_PARAMETERS="\'core.pager=sh\'" git log',
      'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log',
      'git -c alias.p="$X" p',
    ]) {
      expect(run(raw).signals, raw).toContain('opaque_config')
    }
    // The same moved config with one of git's own commands: no alias can stand in, nothing is opaque.
    expect(run('HOME=/tmp/h git status').signals).not.toContain('opaque_config')
    expect(run('git lfs pull').signals).not.toContain('opaque_config')
  })

  it('analyses the hooks of every subcommand in the command, not only the first git run', () => {
    expect(texts('git status && git commit -m x')).toContain(`rm -rf ${home}`)
  })

  it('stops on alias loops as git does', () => {
    expect(() => run('git -c alias.a=b -c alias.b=a a')).not.toThrow()
  })

  it('splits an alias like git', () => {
    expect(splitAlias(`commit -m "two words" --author='A B' x\\ y`)).toEqual(['commit', '-m', 'two words', '--author=A B', 'x y'])
    expect(splitAlias('push "--force')).toBeUndefined()
    expect(splitAlias('  ')).toEqual([])
  })
})

describe('git rev-parse --show-toplevel', () => {
  it('is the repository root, so a cd to it keeps the directory: what runs there is read', () => {
    writeFileSync(join(repo, 'deploy.sh'), '#!/bin/sh\nrm -rf ~\n')
    mkdirSync(join(repo, 'src'), { recursive: true })
    const sub = (raw: string) => analyzeCommand(raw, { parser, home, cwd: join(repo, 'src') })
    expect(sub('cd "$(git rev-parse --show-toplevel)" && ./deploy.sh').commands.map((c) => c.text)).toContain(`rm -rf ${home}`)
    expect(sub('cd "$(git rev-parse --show-toplevel)" && ./deploy.sh').signals).not.toContain('unanalysable_script')
  })

  it('is unknown outside a repository, and --git-dir is not followed: a script run there is refused', () => {
    expect(analyzeCommand('cd "$(git rev-parse --show-toplevel)" && ./deploy.sh', { parser, home, cwd: home }).signals).toContain('unanalysable_script')
    expect(analyzeCommand('cd "$(git rev-parse --git-dir)" && ./deploy.sh', { parser, home, cwd: repo }).signals).toContain('unanalysable_script')
  })
})
