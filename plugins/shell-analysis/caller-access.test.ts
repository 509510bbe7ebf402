import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../test/helpers/temp.ts'
import { callerMayRead, type Caller } from './caller-access.ts'
import { DiskReads, stillTrue } from './disk.ts'

// Permission bits are judged from stat, for a caller that is not the files' owner (whoever runs the test owns them).
const stranger: Caller = { uid: 4242424, gids: [4242424] }
const root = tempDir('svc-caller-')
chmodSync(root, 0o755)
const open = join(root, 'open')
const closed = join(root, 'closed')
mkdirSync(open, { mode: 0o755 })
mkdirSync(closed, { mode: 0o700 })
chmodSync(closed, 0o700)
writeFileSync(join(open, 'package.json'), '{}')
writeFileSync(join(open, 'secret'), 'k')
chmodSync(join(open, 'secret'), 0o600)
writeFileSync(join(closed, 'hook.key'), 'k')
chmodSync(join(closed, 'hook.key'), 0o644)
symlinkSync(join(closed, 'hook.key'), join(open, 'link'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('reads with the caller’s rights', () => {
  it('allows what the other class may read, and a missing file in a reachable directory', () => {
    expect(callerMayRead(join(open, 'package.json'), stranger)).toBe(true)
    expect(callerMayRead(join(open, 'absent.sh'), stranger)).toBe(true)
  })

  it('refuses a file closed to the caller, a directory it cannot search, and a link leading into one', () => {
    expect(callerMayRead(join(open, 'secret'), stranger)).toBe(false)
    expect(callerMayRead(join(closed, 'hook.key'), stranger)).toBe(false)
    expect(callerMayRead(join(open, 'link'), stranger)).toBe(false)
  })

  it('judges by the class that applies: the owner’s bits for the owner, the group’s for a member', () => {
    expect(callerMayRead(join(open, 'secret'), { uid: process.getuid!(), gids: [] })).toBe(true)
    chmodSync(join(open, 'secret'), 0o640)
    expect(callerMayRead(join(open, 'secret'), { uid: 4242424, gids: [process.getgid!()] })).toBe(true)
    chmodSync(join(open, 'secret'), 0o600)
    expect(callerMayRead(join(open, 'secret'), { uid: 4242424, gids: [process.getgid!()] })).toBe(false)
  })

  it('DiskReads gives no text the caller could not read, and names the path', () => {
    const disk = new DiskReads(stranger)
    expect(disk.text(join(open, 'package.json'))).toBe('{}')
    expect(disk.text(join(open, 'link'))).toBeUndefined()
    expect(disk.script(join(closed, 'hook.key'))).toBe('unreadable')
    expect(disk.callerRefused).toEqual([join(open, 'link'), join(closed, 'hook.key')])
    expect(new DiskReads().text(join(open, 'link')), 'without a caller, the process’s own rights').toBe('k')
  })

  it('a remembered analysis is not trusted again once the caller loses the right to read a file it read', () => {
    const file = join(open, 'script.sh')
    writeFileSync(file, 'echo hi\n')
    chmodSync(file, 0o644)
    const disk = new DiskReads(stranger)
    expect(disk.script(file)).toEqual({ text: 'echo hi\n' })
    expect(stillTrue(disk.observations())).toBe(true)
    chmodSync(file, 0o600)
    expect(stillTrue(disk.observations())).toBe(false)
  })
})
