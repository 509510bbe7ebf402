/**
 * A harness is one folder and one line (issue 26): a fixture harness (test/fixtures/harness/, id `fixture-agent`,
 * its config under the temp HOME) registered beside the real ones — the only change — is installed and uninstalled
 * byte for byte, shows in status and doctor (its hooks, a setting that switches them off, its schema, its trust
 * step, its sandbox layer and probe), is served by the hook route with its replay-ignore fields, and its config is
 * kept from the agent by self-protection.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseJsonc } from 'jsonc-parser'
import { createEngine } from '../core/index.ts'
import { allPlugins } from '../cli/plugins.ts'
import { SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { doctorCheck, sandboxProbes } from '../cli/commands/doctor.ts'
import { collectStatus } from '../cli/status/collect.ts'
import { harnessPlugins } from '../harnesses/index.ts'
import { applyInstall, applyUninstall } from '../plugins/installer/apply.ts'
import { entriesOf, readManifest } from '../plugins/installer/manifest.ts'
import { planInstall, planUninstall } from '../plugins/installer/plan.ts'
import { sandboxFacts } from '../plugins/installer/sandbox-facts.ts'
import { schemaProblems } from '../plugins/installer/validate.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { installWorld, type InstallWorld } from './helpers/install-world.ts'
import fixture, { ID } from './fixtures/harness/index.ts'

const harnesses = [...harnessPlugins.map((p) => p.harness), fixture.harness]
let world: InstallWorld
let daemon: TestDaemon
let file: string

beforeAll(async () => {
  world = installWorld([fixture.harness])
  file = join(world.home, '.fixture-agent', 'hooks.json')
  daemon = await startTestDaemon({ plugins: [...allPlugins, fixture], home: world.svcHome, env: { SVC_USER_HOME: world.home } })
  await daemon.session()
})
afterAll(async () => {
  await daemon?.stop()
  world?.remove()
})

const install = (over = {}) => {
  const req = world.request({ daemonUrl: daemon.url, ...over })
  applyInstall(req, planInstall(req).token)
}
const statusContext = () => ({ userHome: world.home, vars: { HOME: world.home }, cwd: world.repo, harnesses })
const trustRequest = () => ({ svcHome: world.svcHome, env: { HOME: world.home }, cwd: world.home, entries: entriesOf(readManifest(world.svcHome), ID) })

describe('a harness registered with one line', () => {
  it('is installed into its config (the user’s settings kept, its schema met) and uninstalled byte for byte', () => {
    const before = readFileSync(file, 'utf8')
    const plan = planInstall(world.request({ daemonUrl: daemon.url }))
    expect(plan.changes.map((c) => c.path)).toEqual([file])
    expect(plan.changes[0]!.after).toContain('// keep this comment')
    expect(schemaProblems(fixture.harness.configLocations({ home: world.home, env: {} })[0]!.schema!, parseJsonc(plan.changes[0]!.after!))).toEqual([])
    applyInstall(world.request({ daemonUrl: daemon.url }), plan.token)
    expect((parseJsonc(readFileSync(file, 'utf8')) as { hooks: { PreCall: unknown[] } }).hooks.PreCall).toHaveLength(2)
    const un = planUninstall({ svcHome: world.svcHome, harnesses: [fixture.harness] })
    expect(un.warnings).toEqual([])
    applyUninstall({ svcHome: world.svcHome, harnesses: [fixture.harness] }, un.token)
    expect(readFileSync(file, 'utf8')).toBe(before)
  })

  it('shows in svc status: its hooks, its trust step, and a setting that switches them off (user and project)', async () => {
    install()
    let report = await collectStatus(daemon.url, world.svcHome, statusContext())
    expect(report.hooks).toEqual([expect.objectContaining({ harness: ID, file, entries: 2, missing: 0, urls: [daemon.url], usesShim: true })])
    expect(report.problems.map((p) => p.what)).toContain(`${ID}: 2 of svc's hook entries are not trusted`)
    // What `svc install` does for a harness with a trust step.
    expect(await fixture.harness.trust!.grant(trustRequest(), 'install')).toEqual({ ok: true, line: `${ID}: trusted svc's 2 hook entries` })
    report = await collectStatus(daemon.url, world.svcHome, statusContext())
    expect(report.problems.map((p) => p.what).join('\n')).not.toContain(ID)

    const installed = readFileSync(file, 'utf8')
    writeFileSync(file, installed.replace('"model": "small",', '"model": "small", "disabled": true,'))
    world.write(join(world.repo, '.fixture-agent', 'hooks.json'), '{ "disabled": true }')
    report = await collectStatus(daemon.url, world.svcHome, statusContext())
    expect(report.switchedOff).toEqual([
      { harness: ID, file, setting: 'disabled: true' },
      { harness: ID, file: join(world.repo, '.fixture-agent', 'hooks.json'), setting: 'disabled: true', project: world.repo },
    ])
    expect(report.problems.map((p) => p.what)).toContain(`${ID}: disabled: true in ${file} switches svc's hooks off`)
    writeFileSync(file, installed)
    rmSync(join(world.repo, '.fixture-agent'), { recursive: true })
  })

  it('shows in svc doctor: its schema, its trust step (fixable), its sandbox layer and its probe', async () => {
    const installed = readFileSync(file, 'utf8')
    writeFileSync(file, installed.replace('"model": "small"', '"model": 42'))
    let { problems } = await doctorCheck(daemon.url, world.svcHome, { HOME: world.home }, world.repo, harnesses)
    expect(problems.map((p) => p.what).join('\n')).toContain(`${file} no longer validates against the ${ID} schema`)
    writeFileSync(file, installed)

    rmSync(join(world.home, '.fixture-agent', 'trusted.json'))
    ;({ problems } = await doctorCheck(daemon.url, world.svcHome, { HOME: world.home }, world.repo, harnesses))
    expect(problems).toContainEqual(expect.objectContaining({ what: `${ID}: 2 of svc's hook entries are not trusted`, fix: { kind: 'trust-hooks', harnesses: [ID] } }))
    await fixture.harness.trust!.grant(trustRequest(), 'fix')

    const env = { home: world.home, env: {} }
    const sandbox = sandboxFacts({
      registered: harnesses,
      env,
      svcHome: world.svcHome,
      ports: [7878, 7879],
      policiesDir: SHIPPED_POLICIES_DIR,
      system: false,
      systemRoot: tempDir(),
    })
    expect(sandbox.protectedFiles).toEqual(expect.arrayContaining([file, join(world.home, '.fixture-agent', 'sandbox.json')]))
    install({ sandbox })
    const report = await collectStatus(daemon.url, world.svcHome, statusContext())
    expect(report.sandbox).toEqual([expect.objectContaining({ harness: ID, state: 'on', files: [join(world.home, '.fixture-agent', 'sandbox.json')] })])
    expect(sandboxProbes(report, world.home, { PATH: process.env.PATH }, harnesses)).toEqual([
      { harness: ID, probe: `write ${file}`, outcome: 'blocked', detail: 'the fixture sandbox refuses it' },
    ])
  })

  it('is served by the hook route, replaying a duplicate that differs only in its cosmetic fields', async () => {
    const call = (input: Record<string, unknown>, id: string) =>
      daemon.request('POST', `/v1/hooks/${ID}/PreCall`, { tool_name: 'Bash', tool_input: input, tool_use_id: id, cwd: world.home, session_id: 's1' })
    expect((await call({ command: 'ls' }, 'u1')).body).toEqual({})
    const size = daemon.engine.ledger.size()
    expect((await call({ command: 'ls', note: 'list the files' }, 'u1')).body).toEqual({})
    expect(daemon.engine.ledger.size()).toBe(size)
  })

  it('has its config kept from the agent by self-protection, which it would not be without its line', async () => {
    const pre = async (tool: string, input: Record<string, unknown>, id: string) =>
      (await daemon.request('POST', `/v1/hooks/${ID}/PreCall`, { tool_name: tool, tool_input: input, tool_use_id: id, cwd: world.home })).body as {
        verdict?: string
        reason?: string
      }
    for (const [tool, input] of [
      ['Write', { file_path: file, content: '{}' }],
      ['Edit', { file_path: join(world.repo, '.fixture-agent', 'hooks.json'), old_string: 'a', new_string: 'b' }],
      ['Bash', { command: `echo '{}' > ${file}` }],
      ['Bash', { command: 'rm -rf ~/.fixture-agent' }],
      ['Bash', { command: 'fixture-agent config set hooks none' }],
      ['Bash', { command: 'cp -r /tmp/payload ~/.fixture-agent' }],
    ] as const) {
      const answer = await pre(tool, input, `p-${tool}-${JSON.stringify(input)}`)
      expect(answer, JSON.stringify(input)).toMatchObject({ verdict: 'deny' })
      expect(answer.reason).toMatch(/\[svc rule self\.(harness-config|tree-into-protected)\]/)
    }
    expect(await pre('Write', { file_path: join(world.repo, 'notes.txt'), content: 'x' }, 'p-notes')).toEqual({})

    const without = await createEngine({ plugins: allPlugins, home: tempDir(), policiesDir: SHIPPED_POLICIES_DIR, userHome: world.home, log: pino({ level: 'silent' }) })
    try {
      const { decision } = await without.decide({ sessionId: 's', source: 'claude-code', tool: 'Write', input: { file_path: file, content: '{}' }, cwd: world.home })
      expect(decision.verdict).toBe('allow')
    } finally {
      await without.close()
    }
  })
})
