/**
 * The sandbox layer through the CLI: `svc install --sandbox` for every harness, `svc status --json` reporting it
 * per harness (on / degraded with the command that re-applies it / off), `--system` refused without `--sandbox`,
 * `svc doctor --probe` attacking from inside Claude Code's sandbox (sandbox-runtime) and saying why the others
 * are not probed, and Cursor's `sandbox` flag reaching the gate's input.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import cursor from '../harnesses/cursor/index.ts'
import { srtCli, srtMissing } from '../harnesses/claude-code/probe.ts'
import { tempDir } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

let home: string
let env: NodeJS.ProcessEnv
const svc = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { ...env, ...extra })
const status = async () =>
  JSON.parse((await svc(['status', '--json'])).stdout) as { sandbox: { harness: string; state: string; missing: number }[]; problems: { what: string; hint: string }[] }

beforeAll(() => {
  home = tempDir('svc-sbxstatus-')
  for (const d of ['.claude', '.codex', '.gemini', '.cursor', 'proj']) mkdirSync(join(home, d), { recursive: true })
  // A port nothing listens on: status and doctor report the daemon down, which is beside the point here.
  env = { HOME: home, SVC_HOME: join(home, '.svc'), SVC_URL: 'http://127.0.0.1:9', SVC_SYSTEM_ROOT: join(home, 'etc') }
})
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe('the sandbox layer in svc status and svc doctor', () => {
  it('status says off until `svc install --sandbox`, then on per harness', async () => {
    expect((await svc(['install', '--harness', 'claude-code', '--yes'])).code).toBe(0)
    const off = (await status()).sandbox
    expect(off).toEqual([expect.objectContaining({ harness: 'claude-code', state: 'off', layers: 'degraded' })])
    // Off: the gate alone stands, and status says for what.
    expect((off[0] as unknown as { open: string[] }).open).toEqual(expect.arrayContaining(["reading svc's home", expect.stringContaining('reading secrets')]))
    const run = await svc(['install', '--harness', 'claude-code', 'codex', 'gemini', 'cursor', '--sandbox', '--yes'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('sandbox layer')
    const report = await status()
    expect(Object.fromEntries(report.sandbox.map((s) => [s.harness, s.state]))).toEqual({ 'claude-code': 'on', codex: 'on', gemini: 'on', cursor: 'on' })
    expect((await svc(['status'])).stdout).toMatch(/sandbox: {2}claude-code on/)
    const layers = Object.fromEntries(report.sandbox.map((s) => [s.harness, s as unknown as { layers: string; open: string[] }]))
    expect(layers['claude-code']).toMatchObject({ layers: 'full', open: [] })
    // Codex's, Gemini's and Cursor's sandboxes leave secrets and svc's home readable: status says so.
    for (const h of ['codex', 'gemini', 'cursor']) expect(layers[h]).toMatchObject({ layers: 'degraded', open: expect.arrayContaining(["reading svc's home"]) })
    expect((await svc(['status'])).stdout).toMatch(/degraded: only the gate stops a command that tries reading secrets/)
  })

  it('a sandbox setting changed after install is a problem naming the command that re-applies it', async () => {
    const file = join(home, '.claude', 'settings.json')
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.replace('"allowUnsandboxedCommands": false', '"allowUnsandboxedCommands": true'))
    const report = await status()
    expect(report.sandbox.find((s) => s.harness === 'claude-code')).toMatchObject({ state: 'degraded', missing: 1 })
    expect(report.problems.map((p) => p.hint).join('\n')).toContain('svc install --sandbox --harness claude-code')
    writeFileSync(file, text)
    expect((await status()).sandbox.find((s) => s.harness === 'claude-code')?.state).toBe('on')
  })

  it('--system is refused without --sandbox, and with it writes the managed files under the system root', async () => {
    const refused = await svc(['install', '--harness', 'codex', '--system', '--yes'])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('--system only applies with --sandbox')
    const run = await svc(['install', '--harness', 'codex', '--sandbox', '--system', '--yes'])
    expect(run.code, run.stderr).toBe(0)
    expect(readFileSync(join(home, 'etc', 'codex', 'requirements.toml'), 'utf8')).toContain('allowed_sandbox_modes = ["read-only", "workspace-write"]')
  })

  const srt = srtCli() ? srtMissing({ PATH: process.env.PATH }) : ['@anthropic-ai/sandbox-runtime']
  it.skipIf(srt.length > 0)(
    `doctor --probe: every probe inside Claude Code's sandbox is blocked; harnesses without a way in say why ${srt.length ? `(needs ${srt.join(', ')})` : ''}`,
    async () => {
      const run = await svc(['doctor', '--probe'])
      const probes = run.stdout.split('\n').filter((l) => l.startsWith('probe:'))
      const claude = probes.filter((l) => l.includes('claude-code:'))
      expect(claude.length).toBe(5)
      for (const line of claude) expect(line).toContain('blocked (good)')
      expect(probes.join('\n')).toMatch(/gemini: all: not probed — the harness offers no command/)
      // The suite installs the real Codex CLI: its `codex sandbox` may lack the helper it needs here.
      expect(probes.join('\n')).toMatch(/codex: all: not probed — the codex binary is not on PATH|codex: all: not probed — `codex sandbox` could not run|codex: .*blocked/)
    },
    120_000,
  )
})

describe("Cursor's sandbox flag", () => {
  it('beforeShellExecution keeps `sandbox` in the input the gate sees', () => {
    const parsed = cursor.harness.parse('beforeShellExecution', { command: 'npm test', sandbox: false, cwd: '/w', conversation_id: 'c1', hook_event_name: 'beforeShellExecution' })
    expect(parsed).toMatchObject({ kind: 'call', call: { tool: 'Bash', input: { command: 'npm test', sandbox: false } } })
  })
})
