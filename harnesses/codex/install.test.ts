/** Installing into Codex's hooks.json or config.toml: what only Codex does (the generic round trip is test/install-roundtrip.test.ts). */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyInstall, applyUninstall } from '../../plugins/installer/apply.ts'
import { planInstall, planUninstall } from '../../plugins/installer/plan.ts'
import { installWorld, type InstallWorld } from '../../test/helpers/install-world.ts'
import codex from './index.ts'

const defs = [codex.harness]
let world: InstallWorld
beforeEach(() => {
  world = installWorld(defs)
})
afterEach(() => world.remove())
const CODEX_TOML = () => world.sample(codex.harness, '.codex/config.toml')

describe('codex install', () => {
  it('appends its group after the user’s, and says it trusts svc’s entries through Codex', () => {
    const plan = planInstall(world.request())
    const hooks = JSON.parse(plan.changes.find((c) => c.path.endsWith('.codex/hooks.json'))!.after!)
    expect(hooks.hooks.PreToolUse.map((g: { matcher: string }) => g.matcher)).toEqual(['^Bash$', '.*'])
    expect(plan.notes.join('\n')).toMatch(/trusts svc's entries through Codex's app server/)
  })

  it('warns when its hooks are switched off, since svc would then gate nothing', () => {
    world.write(join(world.home, '.codex/config.toml'), '[features]\nhooks = false\n')
    expect(planInstall(world.request()).notes.join('\n')).toMatch(/OpenAI Codex CLI: WARNING: \[features\] turns hooks off/)
  })

  it('appends a TOML block when Codex hooks live in config.toml, and removes exactly that block', () => {
    rmSync(join(world.home, '.codex/hooks.json'))
    const toml = `${CODEX_TOML()}\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "my-check"`
    world.write(join(world.home, '.codex/config.toml'), toml)
    const req = world.request()
    const plan = planInstall(req)
    expect(plan.changes).toHaveLength(1)
    expect(plan.changes[0]!.after!.startsWith(toml)).toBe(true)
    expect(plan.changes[0]!.after).toContain('[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "')
    applyInstall(req, plan.token)
    // A user edit elsewhere: the block is still removed verbatim.
    const path = join(world.home, '.codex/config.toml')
    writeFileSync(path, readFileSync(path, 'utf8').replace('model = "gpt-5"', 'model = "gpt-5.1"'))
    const un = planUninstall({ svcHome: world.svcHome, harnesses: defs })
    applyUninstall({ svcHome: world.svcHome, harnesses: defs }, un.token)
    expect(readFileSync(path, 'utf8')).toBe(toml.replace('model = "gpt-5"', 'model = "gpt-5.1"'))
  })

  it('keeps Codex hooks in hooks.json when config.toml only holds trust state', () => {
    rmSync(join(world.home, '.codex/hooks.json'))
    world.write(join(world.home, '.codex/config.toml'), `${CODEX_TOML()}\n[hooks.state."/x/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:00"\n`)
    const plan = planInstall(world.request())
    expect(plan.changes.map((c) => c.path)).toEqual([join(world.home, '.codex/hooks.json')])
  })
})
