/** Installing into Cursor's hooks.json: what only Cursor does (the generic round trip is test/install-roundtrip.test.ts). */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { planInstall } from '../../plugins/installer/plan.ts'
import { installWorld, type InstallWorld } from '../../test/helpers/install-world.ts'
import cursor from './index.ts'

let world: InstallWorld
beforeEach(() => {
  world = installWorld([cursor.harness])
})
afterEach(() => world.remove())

describe('cursor install', () => {
  it('seeds hooks.json at version 1 with fail-closed pre-tool hooks, and planning writes nothing', () => {
    const plan = planInstall(world.request())
    const hooks = JSON.parse(plan.changes.find((c) => c.path.endsWith('.cursor/hooks.json'))!.after!)
    expect(hooks.version).toBe(1)
    expect(hooks.hooks.preToolUse[0]).toMatchObject({ timeout: 10, failClosed: true })
    expect(existsSync(join(world.home, '.cursor/hooks.json'))).toBe(false)
  })
})
