import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { canonicalPath, lexicalPath, pathSpellings } from './paths.ts'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'svc-paths-')))
const home = join(root, 'home')
mkdirSync(join(home, '.gemini'), { recursive: true })
mkdirSync(join(home, '.ssh'), { recursive: true })
symlinkSync(join(home, '.gemini', 'settings.json'), join(root, 'dangling'))
symlinkSync(home, join(root, 'homelink'))
symlinkSync('home/.ssh', join(root, 'tmp-rel'))
symlinkSync('loop2', join(root, 'loop1'))
symlinkSync('loop1', join(root, 'loop2'))

describe('canonicalPath', () => {
  it('expands ~ and $HOME and folds .., . and //', () => {
    expect(lexicalPath('~/a//b/../c', undefined, home)).toBe(join(home, 'a/c'))
    expect(lexicalPath('$HOME/.ssh', undefined, home)).toBe(join(home, '.ssh'))
    expect(lexicalPath('${HOME}/x', undefined, home)).toBe(join(home, 'x'))
    expect(lexicalPath('src/./x.ts', '/repo', home)).toBe('/repo/src/x.ts')
  })

  it('follows a dangling symlink to the file a write would create', () => {
    expect(canonicalPath(join(root, 'dangling'), undefined, home)).toBe(join(home, '.gemini', 'settings.json'))
    expect(pathSpellings(join(root, 'dangling'), undefined, home)).toEqual([join(root, 'dangling'), join(home, '.gemini', 'settings.json')])
  })

  it('resolves linked directories on the way, relative link targets, and a missing tail', () => {
    expect(canonicalPath(join(root, 'homelink/.gemini/new/file'), undefined, home)).toBe(join(home, '.gemini/new/file'))
    expect(canonicalPath('tmp-rel/id_ed25519', root, home)).toBe(join(home, '.ssh/id_ed25519'))
  })

  it('stops on link loops and leaves unknown paths lexical', () => {
    expect(canonicalPath(join(root, 'loop1'), undefined, home)).toBe(join(root, 'loop1'))
    expect(canonicalPath('/nonexistent/a/../b', undefined, home)).toBe('/nonexistent/b')
  })
})
