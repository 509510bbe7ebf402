/**
 * The same-uid table of docs/threat-model.md, as a test: with the daemon under its own account
 * (`svc service install --system`, then `svc daemon --user` started as root, as where no service manager runs),
 * a developer account the test creates tries every move code running as the developer could make without a
 * harness sandbox, and the OS refuses each one; the developer's CLI, session minting, hooks and operator actions
 * keep working. Needs root to create the accounts and to start the daemon (CI runs as root); skips otherwise.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { tempDir } from './helpers/temp.ts'
import { waitFor } from './helpers/wait.ts'

const SVC = join(PROJECT_ROOT, 'cli', 'svc.sh')
const skip =
  process.getuid?.() !== 0
    ? 'creating the daemon and developer accounts, and starting the daemon to drop to its own, needs root (CI runs as root)'
    : !existsSync('/usr/sbin/useradd')
      ? 'useradd (Debian passwd) is not installed'
      : undefined
if (skip) console.warn(`system-user: skipped: ${skip}`)

const tag = Math.random().toString(36).slice(2, 8)
const DAEMON_USER = `svcd${tag}`
const DEVELOPER = `svcdev${tag}`
const work = skip ? '' : tempDir('svc-system-')
const daemonHome = join(work, 'daemon-account', 'daemon')
// The hook socket's directory: made by root for the daemon's account as it drops (the unit's RuntimeDirectory=svc).
const socketPath = join(work, 'run', 'svc', 'hook.sock')
const developerHome = join(work, 'developer')
const port = 20_000 + Math.floor(Math.random() * 20_000)
const url = `http://127.0.0.1:${port}`
let developer: { uid: number; gid: number }
let daemonPid = 0
let daemon: ChildProcess | undefined
let daemonLog = ''

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program as the developer account (uid, gid, no supplementary groups), with their home and environment only. */
function asDeveloper(file: string, args: readonly string[], stdin = '', env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      uid: developer.uid,
      gid: developer.gid,
      cwd: developerHome,
      env: { PATH: process.env.PATH!, HOME: developerHome, SVC_HOME: join(developerHome, '.svc'), SVC_URL: url, SVC_ALLOW_SOFTWARE_SIGNER: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.stdin.on('error', () => {}) // a command that reads nothing may exit first
    child.stdin.end(stdin)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const sh = (script: string) => asDeveloper('/bin/sh', ['-c', script])
const svc = (args: readonly string[], stdin = '') => asDeveloper(SVC, args, stdin)
const asRoot = (args: readonly string[], stdin = '', env: Record<string, string> = {}) =>
  execFileSync(SVC, args, { input: stdin, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: work, ...env }, timeout: 60_000, stdio: ['pipe', 'pipe', 'pipe'] })

/** A PreToolUse hook through the installed shim, on the route `svc install` wrote (the socket). */
const hook = (command: string) =>
  asDeveloper(
    '/bin/sh',
    [join(developerHome, '.svc', 'bin', 'svc-hook'), 'claude-code', 'PreToolUse', `--url=${url}`, `--socket=${socketPath}`],
    JSON.stringify({
      session_id: 's',
      cwd: developerHome,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: `toolu_${tag}${command.length}${Math.random().toString(36).slice(2, 6)}`,
    }),
  )

/** The daemon's verdict on a shell command run in `cwd`, asked on its API. */
async function check(command: string, cwd: string): Promise<{ verdict: string; reason: string }> {
  const session = (await (await fetch(`${url}/v1/ledger/root`)).json()) as { session_id?: string }
  const res = await fetch(`${url}/v1/gates/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session.session_id, source: 'test', tool: 'Bash', input: { command }, cwd }),
  })
  return (await res.json()) as { verdict: string; reason: string }
}

function account(name: string): { uid: number; gid: number } {
  const [, , uid, gid] = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

beforeAll(async () => {
  if (skip) return
  chmodSync(work, 0o755)
  execFileSync('useradd', ['--system', '--user-group', '--home-dir', join(work, 'daemon-account'), '--create-home', '--shell', '/usr/sbin/nologin', DAEMON_USER])
  execFileSync('useradd', ['--user-group', '--home-dir', developerHome, '--create-home', '--shell', '/bin/sh', DEVELOPER])
  developer = account(DEVELOPER)
  expect((await svc(['signer', 'enroll', '--tier', 'software'])).code).toBe(0)

  // What an administrator runs: the service install (its unit goes to a scratch directory, not the machine's /etc).
  const installed = asRoot(['service', 'install', '--system', '--user', DAEMON_USER, '--for', DEVELOPER, '--home', daemonHome, '--port', String(port)], '', {
    SVC_SYSTEM_SERVICE_DIR: join(work, 'units'),
  })
  expect(installed).toContain(`the daemon runs as ${DAEMON_USER}`)
  asRoot(['auth', 'set-password', '--home', daemonHome], 'operator-password-1\n')
  const unit = readFileSync(join(work, 'units', 'svc-daemon.service'), 'utf8')
  expect(unit).toContain(`User=${DAEMON_USER}`)
  expect(unit).toContain('NoNewPrivileges=yes')
  const trusted = /SVC_TRUSTED_HOST_KEYS=([^"]+)"/.exec(unit)?.[1]
  expect(trusted, 'the developer’s public key is trusted by the unit').toMatch(/^software:/)
  expect(unit, '`~` in the agent’s commands is the developer’s home').toContain(`"SVC_USER_HOME=${developerHome}"`)
  expect(unit, 'reads carry the developer’s rights').toContain(`"SVC_CALLER_USER=${DEVELOPER}"`)
  expect(unit).toContain('RuntimeDirectory=svc')

  // No service manager runs here: root starts the daemon, which drops to its account by itself.
  daemon = spawn(SVC, ['daemon', '--user', DAEMON_USER, '--home', daemonHome, '--port', String(port), '--dashboard-port', '0'], {
    env: {
      PATH: process.env.PATH,
      HOME: work,
      SVC_TRUSTED_HOST_KEYS: trusted!,
      SVC_USER_HOME: developerHome,
      SVC_CALLER_USER: DEVELOPER,
      SVC_HOOK_SOCKET: socketPath,
      SVC_ALLOW_SOFTWARE_SIGNER: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  daemon.stdout!.on('data', (c) => (daemonLog += c))
  daemon.stderr!.on('data', (c) => (daemonLog += c))
  daemonPid = daemon.pid!
  await waitFor(async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok, `the daemon as ${DAEMON_USER}`, 60_000)
}, 120_000)

afterAll(async () => {
  if (skip) return
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGKILL')
    await once(daemon, 'exit')
  }
  // --force: an account whose process has not been reaped yet is still removed (the test made both).
  for (const name of [DEVELOPER, DAEMON_USER]) execFileSync('userdel', ['--force', name], { stdio: 'ignore' })
  rmSync(work, { recursive: true, force: true })
}, 60_000)

describe.skipIf(skip)('the daemon as its own account, against code running as the developer', () => {
  it('runs as its account, with its home closed to everyone else', () => {
    const status = readFileSync(`/proc/${daemonPid}/status`, 'utf8')
    const daemonAccount = account(DAEMON_USER)
    expect(/^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status)?.slice(1).map(Number)).toEqual([daemonAccount.uid, daemonAccount.uid, daemonAccount.uid])
    expect(/^Groups:\s*(.*)$/m.exec(status)?.[1]?.trim()).toBe(String(daemonAccount.gid))
    expect(statSync(daemonHome).uid).toBe(daemonAccount.uid)
    expect(statSync(daemonHome).mode & 0o777).toBe(0o700)
    expect(statSync(join(daemonHome, 'auth.json')).uid, 'root set the password; the file is the daemon’s').toBe(daemonAccount.uid)
  })

  it.each([
    ['read the hook key', `cat ${daemonHome}/hook.key`],
    ['read the seal key', `cat ${daemonHome}/seal.key`],
    ['list the daemon’s home', `ls ${daemonHome}`],
    ['rewrite the operator password', `printf '{}' > ${daemonHome}/auth.json`],
    ['edit the policy it serves', `printf 'version: 1\\ngates: []\\n' > ${daemonHome}/user-policy.yaml`],
    ['trust a key of its own (mint a stronger session)', `printf '[]' > ${daemonHome}/trusted-host-keys.json`],
    ['cut the ledger', `truncate -s 0 ${daemonHome}/ledger.db`],
    ['delete the ledger', `rm -f ${daemonHome}/ledger.db`],
  ])('refuses, by the OS: %s', async (_what, script) => {
    const run = await sh(script)
    expect(run.code, run.stdout).not.toBe(0)
    expect(run.stderr).toMatch(/Permission denied/)
  })

  it('refuses, by the OS: signalling the daemon, and so taking its port', async () => {
    for (const signal of ['TERM', 'KILL', 'STOP']) {
      const run = await sh(`kill -${signal} ${daemonPid}`)
      expect(run.code).not.toBe(0)
      expect(run.stderr).toMatch(/Operation not permitted/)
    }
    const bind = await asDeveloper(process.execPath, [
      '-e',
      `require('net').createServer().listen(${port}, '127.0.0.1').on('error', (e) => { console.error(e.code); process.exit(3) })`,
    ])
    expect(bind).toMatchObject({ code: 3, stderr: expect.stringContaining('EADDRINUSE') })
    expect((await fetch(`${url}/v1/health`)).ok, 'the daemon still answers').toBe(true)
  })

  it("keeps the developer's CLI, sessions, hooks and operator actions working", async () => {
    const minted = await svc(['session', 'create', '--tier', 'software', '--url', url])
    expect(minted.code, minted.stderr).toBe(0)
    expect(JSON.parse(minted.stdout)).toMatchObject({ signer: 'software', state: 'active' })

    const installed = await svc(['install', '--harness', 'claude-code', '--yes', '--url', url, '--socket', socketPath])
    expect(installed.code, installed.stderr + installed.stdout).toBe(0)
    expect(installed.stdout).toContain(`hooks call the daemon's socket ${socketPath}`)
    expect(readFileSync(join(developerHome, '.claude', 'settings.json'), 'utf8'), 'the hooks use the socket route').toContain(`--socket=${socketPath}`)
    expect(await hook('ls')).toMatchObject({ code: 0, stdout: '{}' })
    // The daemon is out of a kill by name's reach: stopping one's own node processes is ordinary work again.
    expect(await hook('pkill node')).toMatchObject({ code: 0, stdout: '{}' })
    for (const read of ['cat ~/.ssh/id_ed25519', `cat ${developerHome}/.ssh/id_ed25519`]) {
      const denied = await hook(read)
      expect(JSON.parse(denied.stdout).hookSpecificOutput, read).toMatchObject({ permissionDecision: 'deny' })
    }

    const mode = await svc(['mode', 'monitor', '--password-stdin', '--url', url, '--reason', 'system-user test'], 'operator-password-1\n')
    expect(mode.code, mode.stderr).toBe(0)
    expect((await svc(['mode', 'firewall', '--password-stdin', '--url', url], 'operator-password-1\n')).code).toBe(0)

    const status = await svc(['status', '--url', url])
    expect(status.stdout).toContain(`separation: the daemon runs as ${DAEMON_USER}`)
    const doctor = await asDeveloper(SVC, ['doctor', '--url', url], '', { SVC_HOOK_SOCKET: socketPath })
    expect(doctor.stdout).toContain(`separation: the daemon runs as ${DAEMON_USER}`)
    expect(doctor.stdout, 'the hooks call the socket').not.toContain('call its TCP port')
  }, 120_000)

  it('fails closed, naming the file, on a project the daemon may not read; works once it may', async () => {
    const project = join(developerHome, 'closed-project')
    const made = await sh(`mkdir -m 700 ${project} && printf '{"scripts":{"test":"echo ok"}}' > ${project}/package.json`)
    expect(made.code, made.stderr).toBe(0)
    expect(await check('npm test', project)).toMatchObject({ verdict: 'deny', reason: expect.stringContaining(`svc may not read ${project}/package.json (permission denied)`) })
    expect((await sh(`chmod 755 ${project}`)).code).toBe(0)
    expect(await check('npm test', project)).toMatchObject({ verdict: 'allow' })
  })

  it('reads nothing for the developer they could not read: a link to a file only the daemon may read fails closed', async () => {
    // A script the daemon's account may read and the developer may not, reached through a link in their project.
    const hidden = join(work, 'daemon-only')
    execFileSync('mkdir', ['-m', '755', hidden])
    execFileSync('sh', ['-c', `printf 'echo from the daemon\n' > ${hidden}/run.sh && chown ${DAEMON_USER} ${hidden}/run.sh && chmod 600 ${hidden}/run.sh`])
    const project = join(developerHome, 'linked-project')
    expect((await sh(`mkdir ${project} && ln -s ${hidden}/run.sh ${project}/run.sh && printf 'echo mine\n' > ${project}/own.sh`)).code).toBe(0)
    expect((await sh(`cat ${project}/run.sh`)).stderr, 'the developer may not read it').toMatch(/Permission denied/)
    expect(await check('sh ./run.sh', project)).toMatchObject({
      verdict: 'deny',
      reason: expect.stringContaining(`svc may not read ${project}/run.sh (permission denied: the calling user could not read it`),
    })
    expect(await check('sh ./own.sh', project)).toMatchObject({ verdict: 'allow' })
  })

  it('takes hooks on a socket only its account can create: the developer can neither replace nor bind it', async () => {
    const daemonAccount = account(DAEMON_USER)
    const socket = statSync(socketPath)
    expect(socket.isSocket()).toBe(true)
    expect([socket.uid, socket.mode & 0o777]).toEqual([daemonAccount.uid, 0o666])
    const dir = statSync(join(work, 'run', 'svc'))
    expect([dir.uid, dir.mode & 0o777]).toEqual([daemonAccount.uid, 0o755])
    for (const script of [`rm -f ${socketPath}`, `mv ${socketPath} ${socketPath}.old`, `ln -sf /tmp/x ${socketPath}.new`]) {
      const run = await sh(script)
      expect(run.code, script).not.toBe(0)
      expect(run.stderr, script).toMatch(/Permission denied/)
    }
    const bind = await asDeveloper(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(`${socketPath}.mine`)}).on('error', (e) => { console.error(e.code); process.exit(3) })`,
    ])
    expect(bind).toMatchObject({ code: 3, stderr: expect.stringContaining('EACCES') })
    // The socket answers hooks only: the operator API stays on the TCP port.
    const other = await sh(`curl -s --unix-socket ${socketPath} http://localhost/v1/sessions`)
    expect(JSON.parse(other.stdout)).toMatchObject({ status: 404, code: 'not_found' })
    expect(JSON.parse((await sh(`curl -s --unix-socket ${socketPath} http://localhost/v1/health`)).stdout)).toMatchObject({ status: 'ok' })
  })

  // Last: it stops the daemon.
  it('blocks every hook once the daemon stops, even with a stand-in on its TCP port', async () => {
    daemon!.kill('SIGTERM')
    await once(daemon!, 'exit')
    const standIn = spawn(process.execPath, ['-e', `require('http').createServer((q, s) => s.end('{}')).listen(${port}, '127.0.0.1')`], {
      uid: developer.uid,
      gid: developer.gid,
      stdio: 'ignore',
    })
    try {
      await waitFor(async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok, 'the developer’s stand-in on the daemon’s port', 10_000)
      const blocked = await hook('ls')
      expect(blocked.code).toBe(2)
      expect(blocked.stderr).toContain('fail-closed')
      expect(blocked.stderr).toContain('svc system daemon')
      const bind = await asDeveloper(process.execPath, [
        '-e',
        `require('net').createServer().listen(${JSON.stringify(socketPath)}).on('error', (e) => { console.error(e.code); process.exit(3) })`,
      ])
      // Node removes the socket as the daemon closes; its place is still not the developer's to take.
      expect(bind, 'the stopped daemon’s socket path is not the developer’s to bind').toMatchObject({ code: 3, stderr: expect.stringContaining('EACCES') })
    } finally {
      standIn.kill('SIGKILL')
    }
  })
})
