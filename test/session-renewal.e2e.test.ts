/**
 * Sessions that renew themselves, with the real `svc daemon` and `svc agent` in child processes over a
 * throwaway home: a daemon restart, then a hook call allowed with no manual step; an idle expiry (a 1 s idle
 * setting, not minutes of sleep) renewed on demand with user_id and groups kept; a TOTP session that expires
 * denies with exactly what to type and notifies (a fake notify-send records the notification).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { generateSync } from 'otplib'
import { afterEach, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { SessionStore } from '../core/sessions/store.ts'
import { attachRenewal, renewalOf } from '../daemon/renewal.ts'
import { tempDir } from './helpers/daemon.ts'
import { fakeProgram } from './helpers/fake-bin.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'
import { compileCache } from './helpers/child-env.ts'

const SVC = join(PROJECT_ROOT, 'cli', 'svc.sh')
const children: ChildProcess[] = []
const homes: string[] = []

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})

function spawnSvc(args: string[], env: NodeJS.ProcessEnv): ChildProcess & { output: () => string } {
  const child = spawn(SVC, args, { env: { PATH: process.env.PATH, ...compileCache(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  children.push(child)
  return Object.assign(child, { output: () => output })
}

/** Starts `svc daemon` on `port` (0: an ephemeral one; a restart reuses the port the agent knows), dashboard on any free port. */
async function startDaemon(home: string, port: number, env: NodeJS.ProcessEnv) {
  const child = spawnSvc(['daemon', '--port', String(port), '--dashboard-port', '0', '--home', home], env)
  const url = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the daemon exited before listening:\n${child.output()}`)
      return /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(child.output())?.[1]
    },
    'the daemon to listen',
    20_000,
  )
  return Object.assign(child, { url, port: Number(new URL(url).port) })
}

async function stopDaemon(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

const pre = (command: string, id: string) => ({
  session_id: 'c1',
  transcript_path: '/t',
  cwd: '/tmp',
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: id,
})

async function hook(url: string, command: string, id: string): Promise<{ denied: boolean; reason: string }> {
  const res = await fetch(`${url}/v1/hooks/claude-code/PreToolUse`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pre(command, id)) })
  const body = (await res.json()) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } }
  return { denied: body.hookSpecificOutput?.permissionDecision === 'deny', reason: body.hookSpecificOutput?.permissionDecisionReason ?? '' }
}

const current = async (url: string) =>
  (await (await fetch(`${url}/v1/sessions/current`)).json()) as {
    state: string
    session?: { session_id: string; signer: string; user_id?: string; groups?: string[] }
    renewer?: { tier: string }
  }

describe('svc agent renews the daemon session', () => {
  it('after a daemon restart, the first hook call is allowed without any manual step, with user_id and groups kept', async () => {
    const home = tempDir('svc-renew-')
    homes.push(home)
    const env = { SVC_HOME: home, HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1' }
    let daemon = await startDaemon(home, 0, env)
    const agent = spawnSvc(['agent', '--tier', 'software', '--url', daemon.url, '--user-id', 'alice', '--group', 'devs', 'ops'], env)
    const first = await waitFor(async () => ((await current(daemon.url)).state === 'active' ? current(daemon.url) : undefined), 'the agent to mint a session')
    expect(first.session).toMatchObject({ signer: 'software', user_id: 'alice', groups: ['devs', 'ops'] })
    expect(first.renewer).toMatchObject({ tier: 'software' })
    expect((await hook(daemon.url, 'ls', 'toolu_1')).denied).toBe(false)

    await stopDaemon(daemon)
    daemon = await startDaemon(home, daemon.port, env)
    // No `svc session create`: the hook waits (bounded) for the agent to re-mint on the new daemon.
    const after = await hook(daemon.url, 'git status', 'toolu_2')
    expect(after).toEqual({ denied: false, reason: '' })
    const renewed = await current(daemon.url)
    expect(renewed.session).toMatchObject({ signer: 'software', user_id: 'alice', groups: ['devs', 'ops'] })
    expect(renewed.session!.session_id).not.toBe(first.session!.session_id)
    expect(agent.output()).toContain('the daemon restarted')
    // The deny path still denies: renewal does not loosen anything.
    expect((await hook(daemon.url, 'git push --force origin main', 'toolu_3')).denied).toBe(true)
  })

  it('an idle-expired session is rotated on demand and the waiting hook call is allowed', async () => {
    const home = tempDir('svc-renew-')
    homes.push(home)
    const env = { SVC_HOME: home, HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_SESSION_IDLE: '1s' }
    const daemon = await startDaemon(home, 0, env)
    spawnSvc(['agent', '--tier', 'software', '--url', daemon.url, '--user-id', 'bob'], env)
    const first = await waitFor(async () => ((await current(daemon.url)).state === 'active' ? current(daemon.url) : undefined), 'the first session')
    await waitFor(async () => (await current(daemon.url)).state === 'expired', 'the session to idle out', 5_000)
    expect(await hook(daemon.url, 'ls', 'toolu_idle')).toEqual({ denied: false, reason: '' })
    const now = await current(daemon.url)
    expect(now.session).toMatchObject({ user_id: 'bob' })
    const listed = (await (await fetch(`${daemon.url}/v1/sessions`)).json()) as { sessions: { session_id: string; state: string; rotates?: string }[] }
    // On a loaded machine a renewed session can idle out too before the hook call: then the chain is longer,
    // but every link is a rotation and it leads back to the first session.
    const chain: string[] = []
    for (let id: string | undefined = now.session!.session_id; id !== undefined && chain.length < 10; id = listed.sessions.find((s) => s.session_id === id)?.rotates) chain.push(id)
    expect(chain.slice(1)).toContain(first.session!.session_id)
    expect(listed.sessions.find((s) => s.session_id === first.session!.session_id)?.state).toBe('ended')
  })

  it('a TOTP session that expires is not renewed silently: hooks deny with what to type, and the user is notified', async () => {
    const home = tempDir('svc-renew-')
    homes.push(home)
    const notes = join(home, 'notifications.txt')
    const PATH = fakeProgram(home, 'notify-send', `printf '%s|' "$@" >> '${notes}'\necho >> '${notes}'\n`)
    const env = { SVC_HOME: home, HOME: home, SVC_SESSION_IDLE: '1s', PATH }
    const daemon = await startDaemon(home, 0, env)
    const enrolled = await runCli(['signer', 'enroll', '--tier', 'totp', '--passphrase', 'long enough passphrase'], env)
    const secret = new URL(/otpauth:\/\/\S+/.exec(enrolled.stdout)![0]).searchParams.get('secret')!
    const code = generateSync({ secret, epoch: Math.floor(Date.now() / 1000) })
    const minted = await runCli(['session', 'create', '--tier', 'totp', '--url', daemon.url, '--code', code, '--passphrase', 'long enough passphrase'], env)
    expect(minted.code, minted.stderr).toBe(0)
    const id = (JSON.parse(minted.stdout) as { session_id: string }).session_id
    const agent = spawnSvc(['agent', '--tier', 'totp', '--url', daemon.url], env)
    await waitFor(async () => (await current(daemon.url)).renewer?.tier === 'totp', 'the agent to poll')
    await waitFor(async () => (await current(daemon.url)).state === 'expired', 'the TOTP session to idle out', 5_000)

    const denied = await hook(daemon.url, 'ls', 'toolu_totp')
    expect(denied.denied).toBe(true)
    expect(denied.reason).toContain(`type \`svc session rotate --id ${id} --tier totp\` (it asks for the passphrase and a current code)`)
    const note = await waitFor(() => {
      try {
        return readFileSync(notes, 'utf8')
      } catch {
        return ''
      }
    }, 'a desktop notification')
    expect(note).toContain('svc: TOTP session needs a code|')
    expect(note).toContain(`svc session rotate --id ${id} --tier totp`)
    expect(agent.output()).toContain(`svc session rotate --id ${id} --tier totp`)
    expect((await current(daemon.url)).session?.session_id, 'nothing was minted without a code').toBe(id)
  })
})

describe('svc agent --tier totp: unlocked once, then no prompt', () => {
  /** A TOTP enrollment and a fresh current code for it. */
  async function enrollTotp(env: NodeJS.ProcessEnv) {
    const enrolled = await runCli(['signer', 'enroll', '--tier', 'totp', '--passphrase', 'long enough passphrase'], env)
    const secret = new URL(/otpauth:\/\/\S+/.exec(enrolled.stdout)![0]).searchParams.get('secret')!
    return () => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) })
  }
  /** `svc agent --tier totp --unlock-stdin`, given the passphrase and a code once on stdin (as `svc init` starts it). */
  function unlockedAgent(url: string, env: NodeJS.ProcessEnv, code: string, extra: string[] = []) {
    const child = spawn(SVC, ['agent', '--tier', 'totp', '--url', url, '--unlock-stdin', ...extra], {
      env: { PATH: process.env.PATH, ...compileCache(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.stdin.end(`long enough passphrase\n${code}\n`)
    children.push(child)
    return Object.assign(child, { output: () => output })
  }

  it('after a daemon restart the agent re-mints a totp session by itself: no code, no prompt', async () => {
    const home = tempDir('svc-renew-')
    homes.push(home)
    const env = { SVC_HOME: home, HOME: home }
    let daemon = await startDaemon(home, 0, env)
    const code = await enrollTotp(env)
    const agent = unlockedAgent(daemon.url, env, code())
    const first = await waitFor(async () => ((await current(daemon.url)).state === 'active' ? current(daemon.url) : undefined), 'the first totp session', 40_000)
    expect(first.session).toMatchObject({ signer: 'totp' })
    expect(agent.output()).toMatch(/TOTP key unlocked until \S+: renewals need no code until then/)

    await stopDaemon(daemon)
    daemon = await startDaemon(home, daemon.port, env)
    expect(await hook(daemon.url, 'git status', 'toolu_totp_restart')).toEqual({ denied: false, reason: '' })
    const after = await current(daemon.url)
    expect(after.session).toMatchObject({ signer: 'totp' })
    expect(after.session!.session_id).not.toBe(first.session!.session_id)
    expect(agent.output()).toContain('the daemon restarted')
    expect(agent.output()).not.toContain('needs a code')
  }, 150_000)

  /** A daemon whose sessions idle out after 1 s, and a renewer unlocked with a TOTP code, once its first session is minted. */
  async function unlockedTotp(extra: string[] = []) {
    const home = tempDir('svc-renew-')
    homes.push(home)
    const env = { SVC_HOME: home, HOME: home, SVC_SESSION_IDLE: '1s' }
    const daemon = await startDaemon(home, 0, env)
    const code = await enrollTotp(env)
    const agent = unlockedAgent(daemon.url, env, code(), extra)
    const first = await waitFor(async () => ((await current(daemon.url)).state === 'active' ? current(daemon.url) : undefined), 'the first totp session', 40_000)
    return { daemon, agent, first }
  }

  it('an idle-expired totp session is re-minted on demand with no code', async () => {
    const { daemon, agent, first } = await unlockedTotp()
    await waitFor(async () => (await current(daemon.url)).state === 'expired', 'the session to idle out', 5_000)
    expect(await hook(daemon.url, 'ls', 'toolu_totp_idle')).toEqual({ denied: false, reason: '' })
    expect((await current(daemon.url)).session).toMatchObject({ signer: 'totp' })
    expect((await current(daemon.url)).session!.session_id).not.toBe(first.session!.session_id)
    expect(agent.output()).not.toContain('needs a code')
  }, 150_000)

  it('once the unlock lifetime ends, the held key is dropped: the next expiry is told, not renewed', async () => {
    // A 2 s lifetime, not a long one waited out: the unlock mints the first session whatever the lifetime (the
    // re-mint within it is the test above), and the end is what this test waits for.
    const { daemon, agent, first } = await unlockedTotp(['--unlock-lifetime', '2s'])
    expect(first.session).toMatchObject({ signer: 'totp' })
    await waitFor(() => agent.output().includes('the TOTP unlock ended'), 'the unlock lifetime to end', 20_000)
    await waitFor(() => agent.output().includes('TOTP session needs a code'), 'the agent to ask for a code', 20_000)
    // Told, not renewed: the expired session stays the last one minted.
    expect((await current(daemon.url)).state).not.toBe('active')
  }, 150_000)
})

describe('the renewal wait (in-process, injected timing)', () => {
  it('a hook waiting for a renewal gets the session created within the grace period, and gives up after it', async () => {
    const store = new SessionStore()
    const renewal = attachRenewal(store, { graceMs: 300 })
    const now = Date.now()
    renewal.seen('software', now)
    const waiting = renewal.awaitRenewal(now)
    expect(renewal.demanded()).toBe(true)
    setTimeout(() => store.create({ signer: 'unattested' }, Date.now()), 20)
    expect(await waiting).toBe(true)
    expect(renewal.demanded()).toBe(false)
    expect(await renewal.awaitRenewal(Date.now())).toBe(false)
    // Nobody can renew a TOTP session, and no renewer was ever seen by a fresh store: no wait at all.
    expect(await renewal.awaitRenewal(Date.now(), 'totp')).toBe(false)
    expect(await renewalOf(new SessionStore()).awaitRenewal(Date.now())).toBe(false)
  })
})
