import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { PROTECTED_SET } from '../protected-set/set.ts'
import { sandboxPaths } from './sandbox-paths.ts'

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('sandboxPaths: project-root copies named only when present (rootIfPresent)', () => {
  const where = () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sbpaths-'))
    const home = join(dir, 'home')
    const repo = join(home, 'proj')
    mkdirSync(repo, { recursive: true })
    return { home, repo, policiesDir: join(dir, 'policies') }
  }

  it('leaves out absent sitecustomize.py, usercustomize.py, group-policy.yaml at the project root, keeps the rest', () => {
    const w = where()
    const { denyWrite } = sandboxPaths(PROTECTED_SET, w)
    for (const name of ['sitecustomize.py', 'usercustomize.py', 'group-policy.yaml']) {
      expect(denyWrite).not.toContain(join(w.repo, name))
      expect(denyWrite).toContain(join(w.home, name))
    }
    // Absent files that tools outside the sandbox load from the project stay denied (a placeholder or not).
    for (const name of ['.envrc', '.svc.yaml', '.svc', '.git/config']) expect(denyWrite).toContain(join(w.repo, name))
  })

  it('names them when the project has them', () => {
    const w = where()
    for (const name of ['sitecustomize.py', 'group-policy.yaml']) writeFileSync(join(w.repo, name), '')
    const { denyWrite } = sandboxPaths(PROTECTED_SET, w)
    expect(denyWrite).toContain(join(w.repo, 'sitecustomize.py'))
    expect(denyWrite).toContain(join(w.repo, 'group-policy.yaml'))
    expect(denyWrite).not.toContain(join(w.repo, 'usercustomize.py'))
  })
})
