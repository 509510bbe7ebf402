/**
 * Where the `svc` binary keeps V8's compile cache (cli/bin.js): inside the home the command works on, which
 * the self-protection gates keep agents out of, and only once that home exists (`svc daemon` creates it first,
 * as it would anyway). `--home` names that home as it does for the command itself; a process started without
 * NODE_COMPILE_CACHE (as a user's is) shows it.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess } from './helpers/daemon-process.ts'
import { runCliProcess } from './helpers/run-cli.ts'

const root = tempDir('svc-compile-cache-')
afterAll(() => rmSync(root, { recursive: true, force: true }))

const cacheOf = (home: string) => join(home, 'cache', 'node-compile')
const filled = (dir: string) => existsSync(dir) && readdirSync(dir, { recursive: true }).length > 0

describe('the compile cache of the svc binary', () => {
  it('lives in the --home the command names, not in $SVC_HOME or ~/.svc', async () => {
    const user = join(root, 'user')
    const envHome = join(root, 'env-home')
    const flagHome = join(root, 'flag-home')
    for (const d of [join(user, '.svc'), envHome, flagHome]) mkdirSync(d, { recursive: true })
    const run = await runCliProcess(['ledger', 'verify', '--home', flagHome], { HOME: user, SVC_HOME: envHome })
    expect(run.stderr).toMatch(/ledger/)
    expect(filled(cacheOf(flagHome))).toBe(true)
    expect(existsSync(cacheOf(envHome))).toBe(false)
    expect(existsSync(cacheOf(join(user, '.svc')))).toBe(false)
  })

  it('lives in $SVC_HOME without --home, and is not created when the home does not exist', async () => {
    const envHome = join(root, 'env-only')
    mkdirSync(envHome)
    await runCliProcess(['--version'], { HOME: join(root, 'nohome'), SVC_HOME: envHome })
    expect(filled(cacheOf(envHome))).toBe(true)
    const absent = join(root, 'absent')
    await runCliProcess(['--version'], { HOME: join(root, 'nohome'), SVC_HOME: absent })
    expect(existsSync(absent)).toBe(false)
  })

  it('svc daemon fills it at its first start in a home that does not exist yet, which it creates private', async () => {
    const home = join(root, 'first-daemon')
    const daemon = await startDaemonProcess({ HOME: join(root, 'nohome'), SVC_HOME: home, SVC_ALLOW_UNATTESTED: '1', NODE_COMPILE_CACHE: '' })
    try {
      expect((await fetch(`${daemon.url}/v1/health`)).ok).toBe(true)
    } finally {
      expect(await daemon.stop()).toBe(0)
    }
    expect(statSync(home).mode & 0o777).toBe(0o700)
    expect(filled(cacheOf(home))).toBe(true)
  })
})
