/**
 * `svc status` and `svc doctor` through the real CLI with a throwaway HOME: a healthy install (exit 0,
 * protection ON), then each breakage detected, and fixed where a fix is offered: a stale shim, a hook entry a
 * harness update removed, a daemon URL that changed (re-running `svc install` refreshes it), a harness config
 * that no longer validates against its schema, and a daemon with no session.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { tempDir } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'
import { compileCache } from './helpers/child-env.ts'

const home = tempDir('svc-status-')
const svcHome = join(home, '.svc')
const settings = join(home, '.claude', 'settings.json')
const port = 20000 + Math.floor(Math.random() * 20000)
const url = `http://127.0.0.1:${port}`
const env = { HOME: home, SVC_HOME: svcHome, SVC_URL: url, SVC_ALLOW_SOFTWARE_SIGNER: '1' }
let daemon: ChildProcess
let agent: ChildProcess

const svc = (args: string[]) => runCli(args, env)

beforeAll(async () => {
  mkdirSync(join(home, '.claude'), { recursive: true })
  writeFileSync(settings, '{\n  "model": "opus"\n}\n')
  daemon = spawn(join(PROJECT_ROOT, 'cli', 'svc.sh'), ['daemon', '--port', String(port)], { env: { PATH: process.env.PATH, ...compileCache(), ...env }, stdio: 'ignore' })
  await waitFor(async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok, 'the daemon', 20_000)
  const installed = await svc(['install', '--harness', 'claude-code', '--yes', '--tier', 'software'])
  expect(installed.code, installed.stderr).toBe(0)
})
afterAll(() => {
  agent?.kill('SIGKILL')
  daemon?.kill('SIGKILL')
  rmSync(home, { recursive: true, force: true })
})

describe('svc status / svc doctor', () => {
  it('a healthy install: protection ON, exit 0, every part listed', async () => {
    agent = spawn(join(PROJECT_ROOT, 'cli', 'svc.sh'), ['agent', '--tier', 'software'], { env: { PATH: process.env.PATH, ...compileCache(), ...env }, stdio: 'ignore' })
    await waitFor(async () => (await svc(['status'])).stdout.includes('renewal:  svc agent (software) listening'), 'the agent to be seen')
    const status = await svc(['status'])
    expect(status.code, status.stdout).toBe(0)
    expect(status.stdout).toContain(`daemon:   reachable at ${url} (version 0.1.0), mode firewall`)
    expect(status.stdout).toMatch(/session: {2}ses_[0-9a-f]{24} active, signer software \(DEV — SOFTWARE SIGNER\), expires \S+, idle expiry \S+/)
    expect(status.stdout).toMatch(/hooks: {4}claude-code \(user\) \S+settings\.json: (\d+)\/\1 entries, calls http:\/\/127\.0\.0\.1:\d+/)
    expect(status.stdout).toContain(`shim:     current (${svcHome}/bin/svc-hook)`)
    expect(status.stdout).toMatch(/policy: {3}ok, hash [0-9a-f]{12}\n\s+daemon\s+ok\s+\S+\.yaml \(\d+ gates\)/)
    expect(status.stdout).toMatch(/ledger: {3}\d+ leaves, last checkpoint at tree size \d+, \d+ KiB on disk/)
    expect(status.stdout).toContain('protection: ON')
    const doctor = await svc(['doctor'])
    expect(doctor.code).toBe(0)
    expect(doctor.stdout).toContain('doctor: everything checks out; protection is in force')
    const json = JSON.parse((await svc(['status', '--json'])).stdout)
    expect(json).toMatchObject({ url, daemon: { reachable: true }, mode: 'firewall', shim: 'current', problems: [] })
  })

  it('a stale shim: status fails, doctor --fix refreshes it', async () => {
    appendFileSync(join(svcHome, 'bin', 'svc-hook'), '# edited\n')
    const status = await svc(['status'])
    expect(status.code).toBe(1)
    expect(status.stdout).toContain(`the hook shim ${svcHome}/bin/svc-hook is stale`)
    expect(status.stderr).toContain('svc: protection is not fully in force (1 problem; `svc doctor` offers fixes)')
    const doctor = await svc(['doctor'])
    expect(doctor.stdout).toContain('[fix]')
    expect(doctor.stdout).toContain('run `svc doctor --fix` to repair the 1 marked [fix]')
    const fixed = await svc(['doctor', '--fix'])
    expect(fixed.stdout).toContain(`fixed: refreshed the shim ${svcHome}/bin/svc-hook`)
    expect(fixed.code).toBe(0)
  })

  it('a stale shim is also refreshed by re-running svc install (not "nothing to change")', async () => {
    writeFileSync(join(svcHome, 'bin', 'svc-hook'), '#!/bin/sh\nexit 0\n')
    const again = await svc(['install', '--harness', 'claude-code', '--yes', '--tier', 'software'])
    expect(again.stdout).toContain(`refreshed the stale shim ${svcHome}/bin/svc-hook; the hook entries were already current`)
    expect((await svc(['status'])).code).toBe(0)
  })

  it('hook entries a harness update removed: detected, and doctor --fix re-installs them', async () => {
    writeFileSync(settings, '{\n  "model": "opus",\n  "hooks": {}\n}\n')
    const status = await svc(['status'])
    expect(status.code).toBe(1)
    expect(status.stdout).toMatch(new RegExp(`claude-code: (\\d+) of \\1 svc hook entries are gone from ${settings.replace(/[.]/g, '\\.')}`))
    const fixed = await svc(['doctor', '--fix'])
    expect(fixed.stdout).toContain(`fixed: re-installed the svc hooks of claude-code for ${url}`)
    expect(fixed.code, fixed.stdout).toBe(0)
    expect(JSON.parse(readFileSync(settings, 'utf8')).hooks.PreToolUse).toHaveLength(1)
  })

  it('a daemon URL that changed: detected; re-running svc install with the new URL replaces the entries', async () => {
    const moved = 'http://127.0.0.1:1'
    const status = await runCli(['status', '--url', moved], env)
    expect(status.stdout).toContain(`the hooks in ${settings} call ${url}, not the daemon URL ${moved}`)
    const reinstall = await runCli(['install', '--harness', 'claude-code', '--yes', '--url', moved], { ...env, SVC_ALLOW_UNATTESTED: '1' })
    expect(reinstall.stdout).toContain('installed svc hooks for claude-code (1 file(s)')
    const text = readFileSync(settings, 'utf8')
    expect(text).toContain(`--url=${moved}`)
    expect(text).not.toContain(`--url=${url}`)
    expect(JSON.parse(text).hooks.PreToolUse).toHaveLength(1)
    // Back to the running daemon: doctor --fix does the same for the URL it is given.
    const fixed = await svc(['doctor', '--fix'])
    expect(fixed.stdout).toContain(`fixed: re-installed the svc hooks of claude-code for ${url}`)
    expect(fixed.code, fixed.stdout).toBe(0)
    // Uninstall still restores the user's file byte for byte.
    const uninstalled = await svc(['uninstall', '--yes'])
    expect(uninstalled.code, uninstalled.stderr).toBe(0)
    expect(readFileSync(settings, 'utf8')).toBe('{\n  "model": "opus"\n}\n')
    await svc(['install', '--harness', 'claude-code', '--yes', '--tier', 'software'])
  })

  it('a harness config that no longer validates against its schema: doctor reports it, with no automatic fix', async () => {
    const valid = readFileSync(settings, 'utf8')
    writeFileSync(settings, valid.replace('"model": "opus"', '"model": 42'))
    const doctor = await svc(['doctor', '--fix'])
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).toContain(`${settings} no longer validates against the claude-code schema`)
    expect(doctor.stdout).toContain('fix the file by hand')
    writeFileSync(settings, valid)
  })

  it('no session and no renewer: protection is off, with what to run', async () => {
    agent.kill('SIGTERM')
    daemon.kill('SIGTERM')
    await new Promise((resolve) => daemon.once('exit', resolve))
    daemon = spawn(join(PROJECT_ROOT, 'cli', 'svc.sh'), ['daemon', '--port', String(port)], { env: { PATH: process.env.PATH, ...compileCache(), ...env }, stdio: 'ignore' })
    await waitFor(async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok, 'the restarted daemon', 20_000)
    const status = await svc(['status'])
    expect(status.code).toBe(1)
    expect(status.stdout).toContain('session:  none')
    expect(status.stdout).toContain('the daemon has no session (it restarted, or none was minted yet): every hook call is denied')
    expect(status.stdout).toContain('no `svc agent` is running: start one (`svc agent --tier <tier>` renews by itself) or type `svc session create --tier <tier>`')
    daemon.kill('SIGTERM')
    await new Promise((resolve) => daemon.once('exit', resolve))
    const down = await svc(['status'])
    expect(down.stdout).toContain(`daemon:   NOT reachable at ${url}`)
    expect(down.code).toBe(1)
  })

  it('hooks installed, daemon down: status and the installed shim both say how to start it', async () => {
    const down = await svc(['status'])
    expect(down.code).toBe(1)
    expect(down.stdout).toMatch(/hooks: .*claude-code/s)
    expect(down.stdout).toContain('→ start it: `svc service install` (runs at login, restarts on failure) or `svc daemon`')
    expect(down.stdout).not.toContain('svc session create')
    // The shim exactly as Claude Code runs it (the command in settings.json): blocked, exit 2, the same next step.
    const command = /"command": "([^"]*svc-hook claude-code PreToolUse[^"]*)"/.exec(readFileSync(settings, 'utf8'))![1]!.split(' ')
    const payload = {
      session_id: 's',
      transcript_path: '/t',
      cwd: home,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_down',
    }
    const shim = spawnSync(command[0]!, command.slice(1), { input: JSON.stringify(payload), encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: home } })
    expect(shim.status).toBe(2)
    expect(shim.stderr).toContain(`svc: the svc daemon at ${url} did not answer`)
    expect(shim.stderr).toContain(
      'The tool call was blocked (fail-closed). Start the svc daemon (`svc daemon` in a terminal, or `svc service install` to keep it running) and retry',
    )
    // svc is not on that PATH, as after `npm uninstall -g svc` (npm 7+ runs no uninstall script): the way out is named.
    expect(shim.stderr).toContain('If the svc package was removed (`svc` is not on PATH), its hooks were left behind: reinstall it and run `svc uninstall --all`')
  })
})
