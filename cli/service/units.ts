/**
 * What `svc service install` writes: a per-user service for the daemon, and one for the renewer (`svc agent`)
 * when a tier is chosen. Linux: systemd user units (logs in the journal: `journalctl --user -u svc-daemon`).
 * macOS: launchd LaunchAgents (logs in ~/Library/Logs/svc/). Both restart on failure. Pure: paths and text only.
 */
import { join } from 'node:path'

export type ServicePlatform = 'systemd' | 'launchd'

export interface ServiceSpec {
  /** Absolute path of the `svc` executable the services run (cli/svc.sh, symlinks resolved). */
  readonly svcBin: string
  readonly home: string
  readonly port: number
  /** Renewer tier (`svc agent --tier`); no agent service when absent. */
  readonly agentTier?: string
  /** Extra environment both services get (e.g. SVC_ALLOW_SOFTWARE_SIGNER=1 for a software agent). */
  readonly env: Readonly<Record<string, string>>
  /** The user's home directory (unit and log locations). */
  readonly userHome: string
}

export interface ServiceFile {
  readonly name: 'daemon' | 'agent'
  /** systemd unit name or launchd label. */
  readonly id: string
  readonly path: string
  readonly text: string
}

export const SYSTEMD_UNITS = { daemon: 'svc-daemon.service', agent: 'svc-agent.service' } as const
export const LAUNCHD_LABELS = { daemon: 'dev.svc.daemon', agent: 'dev.svc.agent' } as const

/** The per-user service directory of a platform. */
export function serviceDir(platform: ServicePlatform, userHome: string, env: NodeJS.ProcessEnv): string {
  return platform === 'systemd' ? join(env.XDG_CONFIG_HOME || join(userHome, '.config'), 'systemd', 'user') : join(userHome, 'Library', 'LaunchAgents')
}

function commands(spec: ServiceSpec): Record<'daemon' | 'agent', string[]> {
  return {
    daemon: [spec.svcBin, 'daemon', '--port', String(spec.port), '--home', spec.home],
    agent: [spec.svcBin, 'agent', '--tier', spec.agentTier ?? '', '--url', `http://127.0.0.1:${spec.port}`, '--home', spec.home],
  }
}

/** systemd quoting: each argument in double quotes, with `\`, `"`, `$` and `%` escaped. */
export const systemdArg = (arg: string) => `"${arg.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '$$$$').replace(/%/g, '%%')}"`

function systemdUnit(name: 'daemon' | 'agent', argv: string[], spec: ServiceSpec): string {
  const env = { SVC_HOME: spec.home, ...spec.env }
  const lines = [
    '# Written by `svc service install`; `svc service uninstall` removes it. Edit the command, not this file.',
    '[Unit]',
    name === 'daemon' ? 'Description=svc daemon (agent policy control plane)' : 'Description=svc agent (renews the svc daemon session)',
    ...(name === 'agent' ? [`After=${SYSTEMD_UNITS.daemon}`, `Wants=${SYSTEMD_UNITS.daemon}`] : []),
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${argv.map(systemdArg).join(' ')}`,
    ...Object.entries(env).map(([k, v]) => `Environment=${systemdArg(`${k}=${v}`)}`),
    'Restart=on-failure',
    'RestartSec=2s',
    'StandardOutput=journal',
    'StandardError=journal',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ]
  return lines.join('\n')
}

export const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

function launchdPlist(name: 'daemon' | 'agent', argv: string[], spec: ServiceSpec): string {
  const logs = join(spec.userHome, 'Library', 'Logs', 'svc')
  const env = { SVC_HOME: spec.home, PATH: '/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin', ...spec.env }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `svc service install`; `svc service uninstall` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key><string>${LAUNCHD_LABELS[name]}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...argv.map((a) => `    <string>${xml(a)}</string>`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...Object.entries(env).map(([k, v]) => `    <key>${xml(k)}</key><string>${xml(v)}</string>`),
    '  </dict>',
    '  <key>RunAtLoad</key><true/>',
    '  <!-- restart on failure, not after a clean stop -->',
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ThrottleInterval</key><integer>2</integer>',
    `  <key>StandardOutPath</key><string>${xml(join(logs, `${name}.log`))}</string>`,
    `  <key>StandardErrorPath</key><string>${xml(join(logs, `${name}.log`))}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n')
}

/** The files for `spec` on `platform`: the daemon's, then the agent's when a tier is set. */
export function serviceFiles(platform: ServicePlatform, spec: ServiceSpec, env: NodeJS.ProcessEnv): ServiceFile[] {
  const dir = serviceDir(platform, spec.userHome, env)
  const argv = commands(spec)
  const names: ('daemon' | 'agent')[] = spec.agentTier ? ['daemon', 'agent'] : ['daemon']
  return names.map((name) =>
    platform === 'systemd'
      ? { name, id: SYSTEMD_UNITS[name], path: join(dir, SYSTEMD_UNITS[name]), text: systemdUnit(name, argv[name], spec) }
      : { name, id: LAUNCHD_LABELS[name], path: join(dir, `${LAUNCHD_LABELS[name]}.plist`), text: launchdPlist(name, argv[name], spec) },
  )
}
