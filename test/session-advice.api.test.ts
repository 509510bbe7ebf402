/**
 * The advice a denied hook call and `svc status` give without a live session comes from the real state of the
 * renewer: none running, one waiting in its terminal for a TOTP code, one renewing silently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

let daemon: TestDaemon
const userHome = tempDir('svc-advice-user-')

const bash = async () => {
  const body = {
    session_id: 's',
    transcript_path: '/t',
    cwd: '/tmp',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_use_id: `t${Math.random()}`,
  }
  const res = await fetch(`${daemon.url}/v1/hooks/claude-code/PreToolUse`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return ((await res.json()) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason
}
const status = () => runCli(['status'], { SVC_HOME: daemon.home, SVC_URL: daemon.url, SVC_USER_HOME: userHome, HOME: userHome })

beforeAll(async () => {
  daemon = await startTestDaemon({ env: { SVC_USER_HOME: userHome } })
})
afterAll(async () => {
  await daemon.stop()
})

describe('advice without a live session', () => {
  it('no renewer: the hook says to start svc agent or mint a session, and status agrees', async () => {
    expect(await bash()).toContain('no `svc agent` is running: start one (`svc agent --tier <tier>` renews by itself) or type `svc session create --tier <tier>`')
    const s = await status()
    expect(s.stdout).toContain('the daemon has no session (it restarted, or none was minted yet): every hook call is denied')
    expect(s.stdout).toContain('no `svc agent` is running')
    // svc log shows that refusal with a rule label and its reason, not a bare `-`.
    const log = await runCli(['log', '--limit', '1'], { SVC_HOME: daemon.home, SVC_URL: daemon.url, HOME: userHome })
    expect(log.stdout).toMatch(/deny\s+claude-code\s+Bash\s+\(refused\)\s+ls {2}\[the daemon has no session .*no `svc agent` is running/)
  })

  it('a renewer waiting for a TOTP code: the hook and status say to type it in its terminal, not to run svc agent', async () => {
    await daemon.request('GET', '/v1/sessions/current?renewer=totp&waiting=code')
    const reason = await bash()
    expect(reason).toContain('`svc agent` is waiting in its terminal for the passphrase and a TOTP code')
    expect(reason).not.toContain('svc session create')
    const s = await status()
    expect(s.stdout).toContain('renewal:  svc agent (totp) is waiting in its terminal for the passphrase and a code')
    expect(s.stdout).not.toMatch(/run `svc agent/)
  })

  it('a silent renewer that polls again is no longer waiting; once a session is active, nothing is advised', async () => {
    await daemon.request('GET', '/v1/sessions/current?renewer=software')
    expect(await bash()).toContain('`svc agent --tier software` is renewing it: retry in a few seconds')
    await daemon.session()
    const s = await status()
    expect(s.stdout).not.toContain('every hook call is denied')
  })
})
