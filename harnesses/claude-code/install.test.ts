/** Installing into Claude Code's settings: what only Claude Code does (the generic round trip is test/install-roundtrip.test.ts). */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyInstall, applyUninstall } from '../../plugins/installer/apply.ts'
import { planInstall, planUninstall } from '../../plugins/installer/plan.ts'
import { installWorld, type InstallWorld } from '../../test/helpers/install-world.ts'
import claude from './index.ts'

const defs = [claude.harness]
let world: InstallWorld
beforeEach(() => {
  world = installWorld(defs)
})
afterEach(() => world.remove())

describe('claude-code install', () => {
  it('warns when its hooks are switched off, since svc would then gate nothing', () => {
    world.write(join(world.home, '.claude/settings.json'), '{ "disableAllHooks": true }')
    expect(planInstall(world.request()).notes.join('\n')).toMatch(/Claude Code: WARNING: disableAllHooks is true/)
  })

  it('leaves an svc entry edited since install alone, with a warning, and removes the others', () => {
    const { svcHome } = world
    applyInstall(world.request(), planInstall(world.request()).token)
    const claudePath = join(world.home, '.claude/settings.json')
    writeFileSync(claudePath, readFileSync(claudePath, 'utf8').replace(/"timeout": 10/, '"timeout": 99'))
    const un = planUninstall({ svcHome, harnesses: defs })
    applyUninstall({ svcHome, harnesses: defs }, un.token)
    expect(un.warnings.join('\n')).toMatch(/settings\.json: the svc entry at \/hooks\/PreToolUse was edited since install; left it alone/)
    const settings = JSON.parse(readFileSync(claudePath, 'utf8'))
    expect(settings.hooks.PreToolUse).toHaveLength(2)
    expect(settings.hooks.PostToolUse).toBeUndefined()
  })

  it('offers the Claude HTTP hook as an opt-in and says it fails open', () => {
    const plan = planInstall(world.request({ transport: 'http' }))
    const value = JSON.parse(plan.changes[0]!.after!)
    expect(value.hooks.PreToolUse[1].hooks[0]).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:7878/v1/hooks/claude-code/PreToolUse',
      headers: { 'X-Svc-Install': plan.installId },
      timeout: 10,
    })
    expect(plan.notes.join('\n')).toMatch(/FAILS OPEN/)
  })
})
