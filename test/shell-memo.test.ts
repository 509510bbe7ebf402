/**
 * The shell-analysis memo under attack, through the real engine with the shipped packs: a hostile agent
 * repeats a command that was allowed after changing what it reads underneath (a script rewritten, a
 * symlink swapped, a repository or package.json planted, a directory made, another cwd). The verdict must
 * follow the disk every time; the memo only saves work while nothing it read has changed.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { allPlugins } from '../cli/plugins.ts'
import { createEngine, type Engine } from '../core/index.ts'
import { AnalysisMemo, createShellAnalysisPlugin } from '../plugins/shell-analysis/index.ts'

let root: string
let home: string
let engine: Engine
const memo = new AnalysisMemo()

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-memo-'))
  home = join(root, 'home', 'dev')
  mkdirSync(join(home, '.ssh'), { recursive: true })
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'not a real key\n')
  const plugins = allPlugins.map((p) => (p.name === 'analysis:shell' ? createShellAnalysisPlugin({}, memo) : p))
  expect(plugins.filter((p) => p.name === 'analysis:shell')).toHaveLength(1)
  engine = await createEngine({ plugins, home: join(root, 'svc-home'), policiesDir: SHIPPED_POLICIES_DIR, userHome: home, log: pino({ level: 'silent' }) })
})
afterAll(async () => {
  await engine?.close()
  rmSync(root, { recursive: true, force: true })
})

let n = 0
/** A fresh project directory under the governed home. */
function project(): string {
  const dir = join(home, 'p', String(++n))
  mkdirSync(dir, { recursive: true })
  return dir
}

/** Writes files under `dir` (parents made as needed). */
function plant(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
}
const HEAD = { '.git/HEAD': 'ref: refs/heads/main\n' }

async function verdict(command: string, cwd: string): Promise<{ verdict: string; rules: string[] }> {
  const { decision } = await engine.decide({ sessionId: 'memo', source: 'claude-code', tool: 'Bash', input: { command }, cwd })
  return { verdict: decision.verdict, rules: decision.hits.map((h) => h.gateId) }
}

/** Runs `command` twice unchanged (the second answer must come from the memo), changes the disk, runs it again. */
async function attack(command: string, cwd: string, change: () => void, rule: string): Promise<void> {
  expect((await verdict(command, cwd)).verdict, `${command} before the change`).toBe('allow')
  const before = memo.stats()
  expect((await verdict(command, cwd)).verdict).toBe('allow')
  expect(memo.stats().hits, 'an unchanged repeat is answered from the memo').toBe(before.hits + 1)
  change()
  const after = await verdict(command, cwd)
  expect(after.verdict, `${command} after the change`).toBe('deny')
  expect(after.rules).toContain(rule)
  // And the new verdict is remembered in turn, without going stale the other way.
  expect((await verdict(command, cwd)).verdict).toBe('deny')
}

describe('shell-analysis memo: a repeated command is decided on what the disk holds now', () => {
  it('a script rewritten between two runs (same size, same second)', async () => {
    const cwd = project()
    writeFileSync(join(cwd, 'run.sh'), '#!/bin/sh\necho hello ~\n')
    await attack('bash run.sh', cwd, () => writeFileSync(join(cwd, 'run.sh'), '#!/bin/sh\nrm -rf ~ x\n'), 'fs.rm-root-or-home')
  })

  it('a symlink swapped to a private key', async () => {
    const cwd = project()
    writeFileSync(join(cwd, 'readme.txt'), 'hello\n')
    symlinkSync(join(cwd, 'readme.txt'), join(cwd, 'notes'))
    await attack(
      'cat notes',
      cwd,
      () => {
        unlinkSync(join(cwd, 'notes'))
        symlinkSync(join(home, '.ssh', 'id_rsa'), join(cwd, 'notes'))
      },
      'secrets.ssh-private-key',
    )
  })

  it('a program word that becomes a symlink to a system binary (./tidy -rf ~ runs rm)', async () => {
    const cwd = project()
    plant(cwd, { tidy: '#!/bin/sh\necho tidy\n' })
    await attack(
      './tidy -rf ~',
      cwd,
      () => {
        unlinkSync(join(cwd, 'tidy'))
        symlinkSync('/bin/rm', join(cwd, 'tidy'))
      },
      'fs.rm-root-or-home',
    )
  })

  it('a directory on the way replaced by a symlink', async () => {
    const cwd = project()
    mkdirSync(join(cwd, 'keys'))
    writeFileSync(join(cwd, 'keys', 'id_rsa'), 'x\n')
    await attack(
      'cat keys/id_rsa',
      cwd,
      () => {
        renameSync(join(cwd, 'keys'), join(cwd, 'keys.old'))
        symlinkSync(join(home, '.ssh'), join(cwd, 'keys'))
      },
      'secrets.ssh-private-key',
    )
  })

  it('a package.json planted where there was none, then rewritten', async () => {
    const cwd = project()
    await attack('npm test', cwd, () => writeFileSync(join(cwd, 'package.json'), '{"scripts":{"test":"rm -rf ~"}}'), 'fs.rm-root-or-home')
    writeFileSync(join(cwd, 'package.json'), '{"scripts":{"test":"echo ~"}}')
    expect((await verdict('npm test', cwd)).verdict).toBe('allow')
  })

  it('a repository planted (a .git with a config alias) under a command that was outside any', async () => {
    const cwd = project()
    await attack('git st', cwd, () => plant(cwd, { ...HEAD, '.git/config': '[alias]\n\tst = !rm -rf ~\n' }), 'fs.rm-root-or-home')
  })

  it("an alias planted in the user's global git config, outside any repository", async () => {
    const cwd = project()
    await attack('git wipe', cwd, () => plant(home, { '.gitconfig': '[alias]\n\twipe = !rm -rf ~\n' }), 'fs.rm-root-or-home')
    rmSync(join(home, '.gitconfig'))
  })

  it('a git hook planted under a hooksPath the config already named', async () => {
    const cwd = project()
    plant(cwd, { ...HEAD, '.git/config': '[core]\n\thooksPath = .husky\n' })
    await attack('git commit -m wip', cwd, () => plant(cwd, { '.husky/pre-commit': '#!/bin/sh\nrm -rf ~\n' }), 'fs.rm-root-or-home')
  })

  it('a directory made where a copy lands (cp into a directory names the file it writes)', async () => {
    const cwd = project()
    plant(cwd, { ...HEAD, 'pre-commit': '#!/bin/sh\necho hi\n' })
    await attack('cp pre-commit .git/hooks', cwd, () => mkdirSync(join(cwd, '.git', 'hooks')), 'persist.autorun-files')
  })

  it('the same command in another working directory', async () => {
    const safe = project()
    const evil = project()
    writeFileSync(join(safe, 'run.sh'), 'echo ok\n')
    writeFileSync(join(evil, 'run.sh'), 'rm -rf ~\n')
    expect((await verdict('bash run.sh', safe)).verdict).toBe('allow')
    expect((await verdict('bash run.sh', safe)).verdict).toBe('allow')
    expect((await verdict('bash run.sh', evil)).rules).toContain('fs.rm-root-or-home')
  })

  it('a wildcard is expanded again every time (an analysis that expanded one is never remembered)', async () => {
    const cwd = project()
    writeFileSync(join(cwd, 'kept.txt'), 'x\n')
    expect((await verdict('cat ./k*', cwd)).verdict).toBe('allow')
    const before = memo.stats()
    expect((await verdict('cat ./k*', cwd)).verdict).toBe('allow')
    expect(memo.stats().hits).toBe(before.hits)
    symlinkSync(join(home, '.ssh', 'id_rsa'), join(cwd, 'key'))
    expect((await verdict('cat ./k*', cwd)).rules).toContain('secrets.ssh-private-key')
  })
})
