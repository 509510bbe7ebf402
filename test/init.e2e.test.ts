/**
 * `svc init` as a user runs it, with real processes over a throwaway HOME and no service manager (as on this
 * kind of machine): the password from stdin, the os-keychain tier in the real kernel keyring (a keyring of the
 * test's own, SVC_KEYRING, so a real key is never replaced; the software tier where keyctl is not usable), the
 * daemon and the renewer started detached, the hooks installed after the diff, a live deny through the shim. A
 * second run changes nothing and says so; `--undo` leaves the harness config byte-exact and the processes gone.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from './helpers/daemon.ts'
import { runCliProcess } from './helpers/run-cli.ts'
import { compileCache } from './helpers/child-env.ts'

const keyctl = spawnSync('keyctl', ['show', '@u'], { encoding: 'utf8' }).status === 0
const home = tempDir('svc-init-home-')
const svcHome = join(home, '.svc')
const settings = join(home, '.claude', 'settings.json')
const original = '{\n  "theme": "dark",\n  "permissions": { "allow": ["Bash(ls:*)"] }\n}\n'
let ring = ''
let env: NodeJS.ProcessEnv
let port = 0

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number }
      server.close(() => resolve(p))
    })
  })

const pids = () => {
  try {
    const r = JSON.parse(readFileSync(join(svcHome, 'init.json'), 'utf8')) as { runner: { daemonPid?: number; agentPid?: number } }
    return [r.runner.daemonPid, r.runner.agentPid].filter((p): p is number => !!p)
  } catch {
    return []
  }
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

beforeAll(async () => {
  mkdirSync(join(home, '.claude'), { recursive: true })
  writeFileSync(settings, original)
  if (keyctl) ring = spawnSync('keyctl', ['newring', `svc-init-test-${process.pid}`, '@u'], { encoding: 'utf8' }).stdout.trim()
  port = await freePort()
  env = { HOME: home, SVC_INIT_NO_SERVICE_MANAGER: '1', DBUS_SESSION_BUS_ADDRESS: '', ...(ring ? { SVC_KEYRING: ring } : {}), ...compileCache() }
})
afterAll(() => {
  for (const pid of pids()) if (alive(pid)) process.kill(pid, 'SIGKILL')
  if (ring) spawnSync('keyctl', ['unlink', ring, '@u'])
  rmSync(home, { recursive: true, force: true })
})

describe(`svc init on a fresh home (${keyctl ? 'os-keychain in the kernel keyring' : 'software tier: keyctl is not usable here'})`, () => {
  const tierArgs = keyctl ? [] : ['--tier', 'software']

  it('refuses without a terminal or --password-stdin, before changing anything', async () => {
    const r = await runCliProcess(['init', '--port', String(port), ...tierArgs], env)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--password-stdin')
    expect(existsSync(join(svcHome, 'init.json'))).toBe(false)
    expect(readFileSync(settings, 'utf8')).toBe(original)
  })

  it('protects in one command: password, signer, daemon and renewer, hooks after the diff, a live deny', async () => {
    const r = await runCliProcess(['init', '--password-stdin', '--port', String(port), ...tierArgs], env, 'correct horse battery\ny\n')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('services: service managers switched off (SVC_INIT_NO_SERVICE_MANAGER=1)')
    expect(r.stdout).toContain(keyctl ? 'signer: os-keychain (the Linux kernel user keyring' : 'signer: software (named with --tier)')
    expect(r.stdout).toContain('operator password: set')
    // The diff came before the question, and the question was answered from stdin.
    expect(r.stdout.indexOf(`--- ${settings}`)).toBeGreaterThan(-1)
    expect(r.stderr).toContain('install svc hooks: write these changes to 1 file(s)? [y/N]')
    expect(r.stdout).toMatch(new RegExp(`session: ses_\\w+ \\(signer ${keyctl ? 'os_keychain' : 'software'}`))
    expect(r.stdout).toMatch(/DENIED: secrets\.ssh-private-key/)
    expect(r.stdout).toContain('at each login (nothing here starts svc for you), run:')
    expect(pids().every(alive)).toBe(true)
    expect(readFileSync(settings, 'utf8')).toContain('svc-hook claude-code PreToolUse')
  })

  it('a second run changes nothing and says so', async () => {
    const before = readFileSync(settings)
    const r = await runCliProcess(['init', '--port', String(port)], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('renewer: already running')
    expect(r.stdout).toContain('hooks: already installed for claude-code')
    expect(r.stdout).toContain('nothing changed: svc init had already done all of this')
    expect(r.stdout).not.toContain('demo:')
    expect(readFileSync(settings).equals(before)).toBe(true)
  })

  it('--undo removes it all: the config byte-exact, the processes stopped, the password and key gone', async () => {
    const running = pids()
    const r = await runCliProcess(['init', '--undo'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`${settings}: byte-exact as before svc init`)
    expect(readFileSync(settings, 'utf8')).toBe(original)
    expect(running.some(alive)).toBe(false)
    expect(existsSync(join(svcHome, 'auth.json'))).toBe(false)
    expect(existsSync(join(svcHome, 'init.json'))).toBe(false)
    if (keyctl) expect(spawnSync('keyctl', ['rlist', ring], { encoding: 'utf8' }).stdout.trim()).toBe('')
    const again = await runCliProcess(['init', '--undo'], env)
    expect(again.stdout).toContain('nothing to undo')
  })
})
