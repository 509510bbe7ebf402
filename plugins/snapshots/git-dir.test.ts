/**
 * `.git` is read for every snapshot, fast path or not (its refs decide whether objects are fetched): a ref update,
 * a packed ref changed, a loose ref appearing, HEAD moving and a removed `.git` each change what is read, with no
 * git process (real files in a temp dir).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readGitDir } from './git-dir.ts'

let ws: string
const A = 'a'.repeat(40)
const B = 'b'.repeat(40)
const key = () => readGitDir(ws)?.refsKey

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'snap-gitdir-'))
  mkdirSync(join(ws, '.git', 'refs', 'heads'), { recursive: true })
  mkdirSync(join(ws, '.git', 'hooks'))
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(join(ws, '.git', 'refs', 'heads', 'main'), `${A}\n`)
  writeFileSync(join(ws, '.git', 'packed-refs'), `# pack-refs with: peeled\n${A} refs/tags/v1\n`)
  writeFileSync(join(ws, '.git', 'config'), '[core]\n')
})
afterEach(() => rmSync(ws, { recursive: true, force: true }))

describe('.git state', () => {
  it('reads HEAD, loose and packed refs, and config', () => {
    const s = readGitDir(ws)!
    expect(s.head).toBe('ref: refs/heads/main')
    expect(s.refs).toEqual({ 'refs/heads/main': A, 'refs/tags/v1': A })
    expect(Buffer.from(s.files.config!.data, 'base64').toString()).toBe('[core]\n')
  })

  it('changes its refs digest for a ref update, a packed ref, a new loose ref and HEAD', () => {
    const seen = new Set([key()])
    const changes = [
      () => writeFileSync(join(ws, '.git', 'refs', 'heads', 'main'), `${B}\n`),
      () => writeFileSync(join(ws, '.git', 'packed-refs'), `${B} refs/tags/v1\n`),
      () => writeFileSync(join(ws, '.git', 'refs', 'heads', 'topic'), `${A}\n`),
      () => writeFileSync(join(ws, '.git', 'HEAD'), `${A}\n`),
    ]
    for (const change of changes) {
      change()
      expect(seen.has(key())).toBe(false)
      seen.add(key())
    }
  })

  it('sees a planted hook and a removed .git', () => {
    writeFileSync(join(ws, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 })
    expect(Object.keys(readGitDir(ws)!.files)).toContain('hooks/pre-commit')
    rmSync(join(ws, '.git'), { recursive: true })
    expect(readGitDir(ws)).toBeUndefined()
  })
})
