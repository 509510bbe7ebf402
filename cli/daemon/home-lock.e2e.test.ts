import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lockHome } from './home-lock.ts'

describe('lockHome', () => {
  it('refuses a second holder of one home, names it, and lets the next one in after a release', () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-lock-'))
    const first = lockHome(home)
    expect(() => lockHome(home)).toThrow(`another svc daemon is already running on ${home}`)
    first.release()
    lockHome(home).release()
  })

  it('is held against another process, and gone when the holder dies without releasing', () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-lock-'))
    const lock = lockHome(home)
    const other = `import('${join(import.meta.dirname, 'home-lock.ts')}').then((m) => { try { m.lockHome(process.argv[1]); console.log('locked') } catch (e) { console.log(e.message) } })`
    const run = () => spawnSync(process.execPath, ['-e', other, home], { encoding: 'utf8' }).stdout.trim()
    expect(run()).toContain('another svc daemon is already running')
    lock.release()
    // The child took it and exited without a release: the OS dropped the lock with the process.
    expect(run()).toBe('locked')
    expect(run()).toBe('locked')
  })
})
