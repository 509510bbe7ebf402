/**
 * The second layer for real (issue 16): svc writes Claude Code's sandbox block with `svc install --sandbox`
 * (the CLI in a child process), the block is turned into sandbox-runtime settings (the library Claude's
 * sandbox is), and attacks static analysis cannot decide run inside a real bubblewrap sandbox: read $SVC_HOME,
 * overwrite ~/.claude/settings.json, connect to the daemon's port from Python, leave a listener behind on a
 * port. Each must fail inside while the same command outside reaches its target. As root and, through a
 * child running as uid 65534 (nobody), as an unprivileged user.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, createConnection, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { valueAt } from '../plugins/installer/jsonc-edit.ts'
import { runInSrt, srtCli, srtMissing, srtSettingsFromClaude } from '../harnesses/claude-code/probe.ts'
import { probeCommands } from '../harnesses/kit/probe.ts'

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
const missing = srtCli() ? srtMissing(env) : ['@anthropic-ai/sandbox-runtime']
const skip = missing.length > 0 ? `needs ${missing.join(', ')} (Debian: apt-get install bubblewrap socat ripgrep; .ci/run installs them)` : ''
const root = process.getuid?.() === 0

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)))
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

describe.skipIf(skip !== '')(`Claude Code's sandbox as svc configures it, on bubblewrap ${skip}`, () => {
  let dir: string
  let home: string
  let daemon: Server
  let port: number
  let block: Record<string, unknown>
  const sockets = new Set<Socket>()

  // Each sandboxed command starts sandbox-runtime's proxies: seconds apiece on a loaded two-core machine.
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sbx-'))
    chmodSync(dir, 0o755)
    home = join(dir, 'home')
    mkdirSync(join(home, '.claude'), { recursive: true })
    mkdirSync(join(home, 'proj'), { recursive: true })
    writeFileSync(join(home, '.claude', 'settings.json'), '{\n  "model": "x"\n}\n')
    daemon = createServer((s) => {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.end('svc\n')
    })
    port = await listen(daemon)
    const cliEnv = { ...env, HOME: home, SVC_HOME: join(home, '.svc'), SVC_URL: `http://127.0.0.1:${port}` }
    execFileSync(process.execPath, ['cli/bin.js', 'install', '--harness', 'claude-code', '--sandbox', '--yes', '--tier', 'unattested'], { env: cliEnv, encoding: 'utf8' })
    writeFileSync(join(home, '.svc', 'token'), 'secret-token\n', { mode: 0o600 })
    block = valueAt(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'), ['sandbox']) as Record<string, unknown>
  }, 120_000)
  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await new Promise((r) => daemon?.close(r))
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  const targets = () => ({
    home,
    svcHome: join(home, '.svc'),
    secretFile: join(home, '.svc', 'token'),
    hookConfig: join(home, '.claude', 'settings.json'),
    port,
    cwd: join(home, 'proj'),
  })

  async function attack(as: { uid?: number; gid?: number }) {
    const settings = srtSettingsFromClaude(block, { home, settingsDir: join(home, '.claude'), cwd: join(home, 'proj'), tmp: join(dir, 'tmp') })
    mkdirSync(join(dir, 'tmp'), { recursive: true, mode: 0o777 })
    chmodSync(join(dir, 'tmp'), 0o777)
    const runEnv = { ...env, HOME: home, TMPDIR: join(dir, 'tmp') }
    const before = readFileSync(join(home, '.claude', 'settings.json'), 'utf8')
    const control = runInSrt(settings, 'echo inside > ok.txt', { cwd: join(home, 'proj'), env: runEnv, ...as })
    expect(control.status, `the sandbox runs commands at all: ${control.output} ${control.error?.message ?? ''}`).toBe(0)
    for (const { probe, command } of probeCommands(targets())) {
      // Outside the sandbox the same command reaches its target: the attack is real, the probe can fail.
      const outside = spawnSync('bash', ['-c', command], { cwd: join(home, 'proj'), env: runEnv, encoding: 'utf8', ...as })
      expect(outside.status, `outside: ${probe}`).toBe(0)
      writeFileSync(join(home, '.claude', 'settings.json'), before)
      const inside = runInSrt(settings, command, { cwd: join(home, 'proj'), env: runEnv, ...as })
      expect(inside.status, `inside: ${probe}: ${inside.output}`).not.toBe(0)
      expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toBe(before)
    }
    const overwrite = runInSrt(settings, `printf '{}' > ${join(home, '.claude', 'settings.json')}`, { cwd: join(home, 'proj'), env: runEnv, ...as })
    expect(overwrite.status).not.toBe(0)
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toBe(before)
    // A listener left behind to answer on a port once the daemon is gone: it dies with the sandbox, or lives in
    // the sandbox's own network namespace; either way the host port stays closed.
    const free = createServer()
    const spare = await listen(free)
    await new Promise((r) => free.close(r))
    const py = `import socket,time\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\ns.bind(("127.0.0.1",${spare}))\ns.listen()\ntime.sleep(30)`
    runInSrt(settings, `setsid nohup python3 -c '${py}' >/dev/null 2>&1 & sleep 1`, { cwd: join(home, 'proj'), env: runEnv, ...as })
    expect(await reachable(spare), 'a listener started inside the sandbox answers on the host').toBe(false)
    // The hook shim runs outside the sandbox (Claude Code: hooks are not sandboxed) and still reaches the daemon.
    expect(await reachable(port)).toBe(true)
  }

  it('svc install --sandbox writes the block the attacks run under', () => {
    expect(block).toMatchObject({ enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false })
    expect((block.filesystem as { denyRead: string[] }).denyRead).toContain('~/.svc')
  })

  it.skipIf(!root)(
    'as root: reading $SVC_HOME, overwriting settings.json, reaching the daemon port and a lasting listener all fail',
    async () => {
      await attack({})
      // Root inside keeps capabilities in its user namespace, but the mounts that hide $SVC_HOME are locked.
      const settings = srtSettingsFromClaude(block, { home, settingsDir: join(home, '.claude'), cwd: join(home, 'proj'), tmp: join(dir, 'tmp') })
      const breakout = runInSrt(settings, `umount ${join(home, '.svc')} 2>/dev/null; mount -o remount,rw / 2>/dev/null; cat ${join(home, '.svc', 'token')}`, {
        cwd: join(home, 'proj'),
        env: { ...env, HOME: home },
      })
      expect(breakout.output).not.toContain('secret-token')
    },
    240_000,
  )

  it.skipIf(!root)(
    'as an unprivileged user (uid 65534): the same attacks fail',
    async () => {
      chownTree(home, 65534, 65534)
      await attack({ uid: 65534, gid: 65534 })
    },
    240_000,
  )
})

function chownTree(path: string, uid: number, gid: number): void {
  execFileSync('chown', ['-R', `${uid}:${gid}`, path])
  chownSync(path, uid, gid)
}
