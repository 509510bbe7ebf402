/**
 * One real-terminal smoke test of `svc top`: the real CLI (cli/svc.sh) in a tmux pane of 120x40 against a real
 * daemon. The screen shows a decision made after it started, a key switches the view, `q` quits cleanly
 * (exit 0). Skipped, saying why, when tmux is not installed (`.ci/run` installs it).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { waitFor } from './helpers/wait.ts'
import { compileCache } from './helpers/child-env.ts'

const TMUX = ['/usr/bin/tmux', '/usr/local/bin/tmux', '/opt/homebrew/bin/tmux'].find((p) => existsSync(p))
if (!TMUX) console.warn('skipping the tmux smoke test of svc top: tmux is not installed (apt-get install tmux)')

describe.skipIf(!TMUX)('svc top in a real terminal (tmux)', () => {
  let d: TestDaemon
  const dir = tempDir()
  const socket = join(dir, 'tmux.sock')
  const tmux = (...args: string[]) =>
    spawnSync(TMUX!, ['-S', socket, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, ...compileCache(), TERM: 'xterm-256color', HOME: dir } })
  const screen = () => tmux('capture-pane', '-p', '-t', 'top').stdout

  beforeAll(async () => {
    d = await startTestDaemon()
  })
  afterAll(async () => {
    tmux('kill-server')
    await d?.stop()
  })

  it('shows a new decision live, switches view on a key and quits on q', async () => {
    const sid = await d.session()
    const exitFile = join(dir, 'exit')
    const svc = join(PROJECT_ROOT, 'cli', 'svc.sh')
    const command = `env HOME=${dir} SVC_HOME=${dir}/svc SVC_URL=${d.url} ${svc} top --interval-ms 200; echo "exit=$?" > ${exitFile}; sleep 30`
    expect(tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', 'top', command).status).toBe(0)
    await waitFor(() => screen().includes('1 Decisions') && screen().includes('svc firewall'), `svc top to draw; screen:\n${screen()}`, 30_000)
    const denied = await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command: 'rm -rf / # tmux-smoke' }, cwd: '/tmp' })
    await waitFor(() => screen().includes('tmux-smoke'), `the decision on screen; screen:\n${screen()}`, 15_000)
    expect(screen()).toMatch(new RegExp(`${denied.body.ledger_seq} \\d\\d:\\d\\d:\\d\\d deny\\s+claude-code Bash\\s+fs\\.rm-root-or-home`))
    tmux('send-keys', '-t', 'top', '2')
    await waitFor(() => /fs\.rm-root-or-home\s+daemon\s+deny\s+1 hits/.test(screen()), `the gates view; screen:\n${screen()}`, 15_000)
    tmux('send-keys', '-t', 'top', 'q')
    // The shell creates the file before it writes the status: wait for the line, not the file.
    await waitFor(() => existsSync(exitFile) && readFileSync(exitFile, 'utf8').endsWith('\n'), `svc top to quit; screen:\n${screen()}`, 15_000)
    expect(readFileSync(exitFile, 'utf8').trim()).toBe('exit=0')
    // The alternate screen is left: the dashboard no longer covers the terminal.
    await waitFor(() => !screen().includes('1 Decisions'), `the screen restored; screen:\n${screen()}`, 5_000)
  })
})
