import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { urlOperands } from './operands.ts'
import { DiskReads } from './disk.ts'
import { canonicalPaths, lexicalPath } from './paths.ts'
import { bareHttpTarget, devTcpTarget, parseCallUrl } from './urls.ts'

describe('URL host canonicalisation', () => {
  it.each([
    'http://127.1:7878',
    'http://0x7f.0.0.1:7878',
    'http://2130706433:7878',
    'http://0177.0.0.1:7878',
    'http://[::ffff:127.0.0.1]:7878',
    'http://github.com@127.0.0.1:7878/',
    'tcp://127.1:7878',
    'http://１２７.０.０.１:7878',
  ])('%s is 127.0.0.1:7878', (raw) => {
    expect(parseCallUrl(raw)).toMatchObject({ host: '127.0.0.1', port: 7878 })
  })
  it('drops brackets and trailing dots', () => {
    expect(parseCallUrl('http://[::1]:7879/')).toMatchObject({ host: '::1', port: 7879 })
    expect(parseCallUrl('http://LOCALHOST.:7878/')).toMatchObject({ host: 'localhost' })
  })
  it('reads scheme-less client targets and /dev/tcp', () => {
    expect(bareHttpTarget(':7878/v1/mode')).toMatchObject({ host: 'localhost', port: 7878 })
    expect(bareHttpTarget('127.1:7879')).toMatchObject({ host: '127.0.0.1', port: 7879 })
    expect(bareHttpTarget('package.json')).toBeUndefined()
    expect(devTcpTarget('/dev/tcp/127.1/7878')).toMatchObject({ scheme: 'tcp', host: '127.0.0.1', port: 7878 })
    expect(urlOperands('nc', ['nc', '-z', 'localhost', '7879'], [])).toContainEqual(expect.objectContaining({ host: 'localhost', port: 7879 }))
    expect(urlOperands('socat', ['socat', '-', 'TCP:127.1:7878'], [])).toContainEqual(expect.objectContaining({ host: '127.0.0.1', port: 7878 }))
    expect(urlOperands('echo', ['echo', 'http://127.0.0.1:7878'], [])).toEqual([])
  })
})

describe('path canonicalisation', () => {
  it('expands ~ and $HOME and folds .. and //', () => {
    const ctx = { home: '/home/dev', cwd: '/home/dev/proj' }
    expect(lexicalPath('~/.ssh/../.ssh//id_rsa', ctx)).toBe('/home/dev/.ssh/id_rsa')
    expect(lexicalPath('$HOME/x', ctx)).toBe('/home/dev/x')
    expect(lexicalPath('../..', ctx)).toBe('/home')
    expect(lexicalPath('a\nb', ctx)).toBeUndefined()
  })
  it('adds the symlink target when a link exists on the way', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-paths-'))
    mkdirSync(join(root, 'real'))
    symlinkSync(join(root, 'real'), join(root, 'link'))
    expect(canonicalPaths('link/file', { home: root, cwd: root, disk: new DiskReads() })).toEqual([join(root, 'link', 'file'), join(root, 'real', 'file')])
  })
})
