/** Installing into Gemini CLI's settings: what only Gemini CLI does (the generic round trip is test/install-roundtrip.test.ts). */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyInstall, applyUninstall } from '../../plugins/installer/apply.ts'
import { planInstall, planUninstall } from '../../plugins/installer/plan.ts'
import { installWorld, type InstallWorld } from '../../test/helpers/install-world.ts'
import gemini from './index.ts'

const defs = [gemini.harness]
let world: InstallWorld
beforeEach(() => {
  world = installWorld(defs)
})
afterEach(() => world.remove())

describe('gemini install', () => {
  it('keeps comments and the user’s hooks, names its entries svc:<event> and appends them last', () => {
    const plan = planInstall(world.request())
    const change = plan.changes.find((c) => c.path.endsWith('.gemini/settings.json'))!
    expect(change.after).toContain('// keep this comment')
    expect(change.after).toContain('// my gemini settings')
    const value = parseJsonc(change.after!) as { hooks: { BeforeTool: { hooks: { name: string; command: string }[] }[] } }
    expect(value.hooks.BeforeTool.map((g) => g.hooks[0]!.name)).toEqual(['lint', 'svc:BeforeTool'])
    expect(value.hooks.BeforeTool[1]!.hooks[0]!.command).toBe(`${world.svcHome}/bin/svc-hook gemini BeforeTool --url=http://127.0.0.1:7878 --svc-install=${plan.installId}`)
  })

  it('warns when its hooks are switched off, since svc would then gate nothing', () => {
    world.write(join(world.home, '.gemini/settings.json'), '{ "hooksConfig": { "enabled": false } }')
    expect(planInstall(world.request()).notes.join('\n')).toMatch(/Gemini CLI: WARNING: hooksConfig.enabled is false/)
  })

  it('keeps user edits made after install', () => {
    applyInstall(world.request(), planInstall(world.request()).token)
    const geminiPath = join(world.home, '.gemini/settings.json')
    writeFileSync(geminiPath, readFileSync(geminiPath, 'utf8').replace('"theme": "GitHub"', '"theme": "Dracula"'))
    const un = planUninstall({ svcHome: world.svcHome, harnesses: defs })
    applyUninstall({ svcHome: world.svcHome, harnesses: defs }, un.token)
    expect(readFileSync(geminiPath, 'utf8')).toBe(world.sample(gemini.harness, '.gemini/settings.json').replace('"theme": "GitHub"', '"theme": "Dracula"'))
  })
})
