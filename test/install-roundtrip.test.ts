/**
 * Install and uninstall over every registered harness at once, with expectations read from the definitions:
 * which files install edits (`configLocations` with purpose `hooks`), the schema each must satisfy, the user's
 * configs it must keep (`samples`), and entries it must recognise as its own (`isOurs`). A new harness is covered
 * by its one line in harnesses/index.ts; what only one harness does is tested in its folder (install.test.ts).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse as parseJsonc } from 'jsonc-parser'
import type { HarnessEnv, HarnessScope } from '../harness-contract/index.ts'
import { applyInstall, applyUninstall } from '../plugins/installer/apply.ts'
import { valueAt } from '../plugins/installer/jsonc-edit.ts'
import { PlanConflictError, planInstall, planUninstall } from '../plugins/installer/plan.ts'
import { schemaProblems } from '../plugins/installer/validate.ts'
import { readManifest } from '../plugins/installer/manifest.ts'
import { harnessPlugins } from '../harnesses/index.ts'
import { installWorld, type InstallWorld } from './helpers/install-world.ts'

const defs = harnessPlugins.map((p) => p.harness)
let world: InstallWorld

beforeEach(() => {
  world = installWorld(defs)
})
afterEach(() => world.remove())

const unique = (paths: string[]) => [...new Set(paths)].sort()
const locations = (env: HarnessEnv, scope: HarnessScope) => defs.flatMap((d) => d.configLocations(env).filter((l) => l.scope === scope))
/** The files install edits at a scope: every harness's hook configs. */
const hookFiles = (env: HarnessEnv, scope: HarnessScope) =>
  unique(
    locations(env, scope)
      .filter((l) => l.purpose === 'hooks')
      .map((l) => l.path),
  )
/** Every config file a harness reads, and the samples: what a round trip must give back. */
const userFiles = () =>
  unique([...locations({ home: world.home, env: {} }, 'user').map((l) => l.path), ...defs.flatMap((d) => Object.keys(d.samples ?? {}).map((p) => join(world.home, p)))])

describe('install plan', () => {
  it('edits every harness’s hook config, appends our entries last, keeps comments and user hooks, and validates against the published schemas', () => {
    const plan = planInstall(world.request())
    const env = { home: world.home, env: {} }
    expect(plan.changes.map((c) => c.path).sort()).toEqual(hookFiles(env, 'user'))
    for (const change of plan.changes) {
      const schema = locations(env, 'user').find((l) => l.path === change.path && l.schema)?.schema
      if (schema) expect(schemaProblems(schema, parseJsonc(change.after!)), change.path).toEqual([])
      expect(change.diff).toContain('+')
      for (const comment of change.before?.match(/\/\/ .*$/gm) ?? []) expect(change.after, change.path).toContain(comment)
      for (const entry of change.entries) {
        if (entry.format !== 'jsonc' || entry.op === 'set') continue
        const list = valueAt(change.after!, entry.pointer) as unknown[]
        const h = defs.find((d) => d.id === entry.harness)!
        expect(h.isOurs(list.at(-1), plan.installId), `${change.path} ${entry.pointer.join('.')}`).toBe(true)
        expect(list.slice(0, -1).some((v) => h.isOurs(v, plan.installId))).toBe(false)
      }
    }
    // Planning writes nothing.
    for (const change of plan.changes) if (change.before === undefined) expect(existsSync(change.path)).toBe(false)
    expect(existsSync(world.svcHome)).toBe(false)
  })

  it('refuses a config file that is not valid JSON, naming it', () => {
    for (const h of defs) {
      const file = h.configLocations({ home: world.home, env: {} }).find((l) => l.scope === 'user' && l.purpose === 'hooks' && l.format === 'jsonc')
      if (!file) continue
      world.write(file.path, '{ "hooks": ')
      expect(() => planInstall(world.request({ harnesses: [h] })), h.id).toThrow(new RegExp(`${basename(file.path).replace('.', '\\.')} is not valid JSON`))
    }
  })
})

describe('install → uninstall', () => {
  it('round-trips every file byte for byte and the same token twice is a no-op', () => {
    const before = world.snapshot(userFiles())
    const plan = planInstall(world.request())
    expect(applyInstall(world.request(), plan.token).applied).toBe(true)
    for (const change of plan.changes) expect(readFileSync(change.path, 'utf8')).toBe(change.after)
    expect(statSync(join(world.svcHome, 'bin/svc-hook')).mode & 0o111).not.toBe(0)
    const installed = world.snapshot(userFiles())
    expect(applyInstall(world.request(), plan.token).applied).toBe(false)
    expect(world.snapshot(userFiles())).toEqual(installed)
    expect(planInstall(world.request()).changes).toEqual([])

    const un = planUninstall({ svcHome: world.svcHome, harnesses: defs })
    expect(un.warnings).toEqual([])
    applyUninstall({ svcHome: world.svcHome, harnesses: defs }, un.token)
    expect(world.snapshot(userFiles())).toEqual(before)
    expect(Object.keys(readManifest(world.svcHome).files)).toEqual([])
  })

  it('rejects a token whose plan no longer matches the files (409)', () => {
    const plan = planInstall(world.request())
    const changed = plan.changes.find((c) => c.before !== undefined) ?? plan.changes[0]!
    writeFileSync(changed.path, `${changed.before ?? '{}'}\n`)
    expect(() => applyInstall(world.request(), plan.token)).toThrow(PlanConflictError)
  })

  it('creates and removes repo-scope files and directories', () => {
    const { home, repo } = world
    const req = world.request({ scope: 'repo', env: { home, repo, env: {} } })
    const plan = planInstall(req)
    const files = hookFiles({ home, repo, env: {} }, 'repo')
    expect(plan.changes.map((c) => c.path).sort()).toEqual(files)
    applyInstall(req, plan.token)
    for (const file of files) expect(existsSync(file)).toBe(true)
    const un = planUninstall({ svcHome: world.svcHome, harnesses: defs, scope: 'repo' })
    applyUninstall({ svcHome: world.svcHome, harnesses: defs, scope: 'repo' }, un.token)
    for (const file of files) expect(existsSync(dirname(file)), dirname(file)).toBe(false)
  })
})
