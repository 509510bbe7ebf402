/**
 * `svc service`: the unit and plist content, and the install → status → uninstall round trip through the real
 * CLI with a throwaway HOME. systemd --user does not run on the test machine: one round trip uses the real
 * `systemctl` (unavailable → files written, a warning saying what to run), another a `systemctl` on PATH that
 * records its calls (what would be loaded and started). launchd is checked by content only (no macOS here).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { serviceFiles, type ServiceSpec } from '../cli/service/units.ts'
import { tempDir } from './helpers/daemon.ts'
import { fakeProgram } from './helpers/fake-bin.ts'
import { runCli } from './helpers/run-cli.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const spec: ServiceSpec = {
  svcBin: '/opt/svc/cli/svc.sh',
  home: '/home/u/.svc',
  port: 17878,
  agentTier: 'software',
  env: { SVC_ALLOW_SOFTWARE_SIGNER: '1' },
  userHome: '/home/u',
}

describe('service files', () => {
  it('systemd user units: the daemon, then the agent after it; restart on failure; logs in the journal', () => {
    const [daemon, agent] = serviceFiles('systemd', spec, {})
    expect(daemon!.path).toBe('/home/u/.config/systemd/user/svc-daemon.service')
    expect(daemon!.text).toContain('ExecStart="/opt/svc/cli/svc.sh" "daemon" "--port" "17878" "--home" "/home/u/.svc"\n')
    expect(daemon!.text).toContain('Environment="SVC_HOME=/home/u/.svc"\nEnvironment="SVC_ALLOW_SOFTWARE_SIGNER=1"\n')
    expect(daemon!.text).toContain('Restart=on-failure\n')
    expect(daemon!.text).toContain('StandardOutput=journal\n')
    expect(daemon!.text).toContain('[Install]\nWantedBy=default.target\n')
    expect(agent!.path).toBe('/home/u/.config/systemd/user/svc-agent.service')
    expect(agent!.text).toContain('After=svc-daemon.service\nWants=svc-daemon.service\n')
    expect(agent!.text).toContain('ExecStart="/opt/svc/cli/svc.sh" "agent" "--tier" "software" "--url" "http://127.0.0.1:17878" "--home" "/home/u/.svc"\n')
    expect(serviceFiles('systemd', spec, { XDG_CONFIG_HOME: '/x' })[0]!.path).toBe('/x/systemd/user/svc-daemon.service')
    expect(serviceFiles('systemd', { ...spec, agentTier: undefined }, {})).toHaveLength(1)
    // A path with systemd's special characters stays one argument.
    expect(serviceFiles('systemd', { ...spec, home: '/h/a "b" $c 100%' }, {})[0]!.text).toContain('"--home" "/h/a \\"b\\" $$c 100%%"')
  })

  it('launchd LaunchAgents: label, argv, environment, KeepAlive on failure, logs in ~/Library/Logs/svc', () => {
    const [daemon, agent] = serviceFiles('launchd', { ...spec, agentTier: 'os-keychain', env: {}, userHome: '/Users/u', home: '/Users/u/.svc' }, {})
    expect(daemon!.path).toBe('/Users/u/Library/LaunchAgents/dev.svc.daemon.plist')
    expect(daemon!.text).toContain('<key>Label</key><string>dev.svc.daemon</string>')
    expect(daemon!.text).toContain('    <string>/opt/svc/cli/svc.sh</string>\n    <string>daemon</string>\n    <string>--port</string>\n    <string>17878</string>')
    expect(daemon!.text).toContain('<key>SVC_HOME</key><string>/Users/u/.svc</string>')
    expect(daemon!.text).toContain('<key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>')
    expect(daemon!.text).toContain('<key>StandardOutPath</key><string>/Users/u/Library/Logs/svc/daemon.log</string>')
    expect(agent!.text).toContain('<string>agent</string>\n    <string>--tier</string>\n    <string>os-keychain</string>')
    expect(serviceFiles('launchd', { ...spec, home: '/a&<b>' }, {})[0]!.text).toContain('<string>/a&amp;&lt;b&gt;</string>')
  })
})

describe('svc service install → status → uninstall (real CLI, throwaway HOME)', () => {
  it('without a running systemd --user: writes the units, says what to run, and removes them again', async () => {
    const home = tempDir('svc-service-')
    dirs.push(home)
    const env = { HOME: home, SVC_HOME: join(home, '.svc') }
    const installed = await runCli(['service', 'install', '--port', '17999'], env)
    expect(installed.code, installed.stderr).toBe(0)
    const unit = join(home, '.config', 'systemd', 'user', 'svc-daemon.service')
    expect(readFileSync(unit, 'utf8')).toContain('"daemon" "--port" "17999"')
    expect(installed.stderr).toMatch(
      /warning: systemd --user is not available here \(.+\); the unit files are written: once it runs, start them with `systemctl --user daemon-reload && systemctl --user enable --now svc-daemon.service`/,
    )
    const status = await runCli(['service', 'status'], env)
    expect(status.code).toBe(0)
    expect(status.stdout).toContain('svc-daemon.service: installed, current, state unknown')
    // A stale unit (e.g. svc moved, or edited by hand) is reported as such.
    writeFileSync(unit, readFileSync(unit, 'utf8').replace('17999', '1'))
    expect((await runCli(['service', 'status'], env)).stdout).toContain('svc-daemon.service: installed, stale')
    const removed = await runCli(['service', 'uninstall'], env)
    expect(removed.stdout).toContain(`removed ${unit}`)
    expect(existsSync(unit)).toBe(false)
    const after = await runCli(['service', 'status'], env)
    expect(after.code).toBe(1)
    expect(after.stderr).toContain('the daemon service is not installed: run `svc service install`')
  })

  it('with systemctl answering: daemon-reload, enable --now both units, then disable --now on uninstall', async () => {
    const home = tempDir('svc-service-')
    dirs.push(home)
    const calls = join(home, 'systemctl.calls')
    const PATH = fakeProgram(home, 'systemctl', `echo "$*" >> '${calls}'\ncase "$*" in *is-active*) echo active ;; esac\n`)
    const env = { HOME: home, SVC_HOME: join(home, '.svc'), PATH }
    // A TOTP renewer as a service could never ask for its code: refused with what to do, nothing written.
    const totp = await runCli(['service', 'install', '--agent', 'totp'], env)
    expect(totp.code).toBe(2)
    expect(totp.stderr).toContain('--agent totp cannot work as a service')
    expect(existsSync(join(home, '.config/systemd/user'))).toBe(false)
    const installed = await runCli(['service', 'install', '--agent', 'software'], env)
    expect(installed.code, installed.stderr).toBe(0)
    expect(installed.stdout).toContain('loaded svc-daemon.service, svc-agent.service; logs: journalctl --user -u svc-daemon.service')
    expect((await runCli(['service', 'status'], env)).stdout).toMatch(/svc-daemon.service: installed, current, active[\s\S]*svc-agent.service: installed, current, active/)
    await runCli(['service', 'uninstall'], env)
    expect(
      readFileSync(calls, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('is-active')),
    ).toEqual([
      '--user daemon-reload',
      '--user enable --now svc-daemon.service svc-agent.service',
      '--user restart svc-daemon.service svc-agent.service',
      '--user disable --now svc-daemon.service svc-agent.service',
      '--user daemon-reload',
      '',
    ])
  })
})
