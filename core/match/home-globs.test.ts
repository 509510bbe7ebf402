import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compileHomeGlobs } from './home-globs.ts'

const root = mkdtempSync(join(tmpdir(), 'svc-home-globs-'))
const home = join(root, 'home')
mkdirSync(join(home, 'dotfiles', 'gemini'), { recursive: true })
symlinkSync(join(home, 'dotfiles', 'gemini'), join(home, '.gemini'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const matches = (globs: ReturnType<typeof compileHomeGlobs>, path: string) => globs.some((g) => g.test(path))

describe('compileHomeGlobs', () => {
  it('binds ~ to the home', () => {
    const globs = compileHomeGlobs(['~/.svc/**'], { home }, false)
    expect(matches(globs, `${home}/.svc/policy.yaml`)).toBe(true)
    expect(matches(globs, '/other/.svc/policy.yaml')).toBe(false)
  })

  it('matches through a linked directory prefix, for ~ and **/ patterns', () => {
    const real = join(home, 'dotfiles', 'gemini', 'settings.json')
    expect(matches(compileHomeGlobs(['~/.gemini/settings.json'], { home }, false), real)).toBe(true)
    expect(matches(compileHomeGlobs(['**/.gemini/settings.json'], { home }, false), real)).toBe(true)
    expect(matches(compileHomeGlobs(['**/.gemini/settings.json'], { home }, false), join(home, 'dotfiles', 'gemini', 'other.json'))).toBe(false)
  })

  it('binds $SVC_HOME to the daemon home (escaped), defaulting to ~/.svc', () => {
    expect(matches(compileHomeGlobs(['$SVC_HOME/**'], { home, svcHome: '/data/svc[1]' }, false), '/data/svc[1]/ledger.db')).toBe(true)
    expect(matches(compileHomeGlobs(['$SVC_HOME/**'], { home, svcHome: '/data/svc[1]' }, false), '/data/svc1/ledger.db')).toBe(false)
    expect(matches(compileHomeGlobs(['$SVC_HOME'], { home }, false), `${home}/.svc`)).toBe(true)
    expect(matches(compileHomeGlobs(['$SVC_POLICIES/*.yaml'], { home, policiesDir: '/opt/x/policies' }, false), '/opt/x/policies/git.yaml')).toBe(true)
    expect(compileHomeGlobs(['$SVC_POLICIES/*.yaml'], { home }, false)).toEqual([])
  })

  it("resolves `..` in a literal prefix (`~/..` is the home's parent), not after a wildcard", () => {
    expect(matches(compileHomeGlobs(['~/..'], { home }, false), root)).toBe(true)
    expect(matches(compileHomeGlobs(['~/../..'], { home }, false), join(root, '..'))).toBe(true)
    expect(matches(compileHomeGlobs(['~/..'], { home }, false), home)).toBe(false)
    expect(matches(compileHomeGlobs(['/a/*/../b'], { home }, false), '/a/x/../b')).toBe(true)
  })

  it('ignores case when asked to (case-insensitive file systems)', () => {
    expect(matches(compileHomeGlobs(['**/.svc.yaml'], { home }, true), '/repo/.SVC.yaml')).toBe(true)
    expect(matches(compileHomeGlobs(['**/.svc.yaml'], { home }, false), '/repo/.SVC.yaml')).toBe(false)
  })
})
