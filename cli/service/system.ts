/**
 * `svc service install --system` (root): the daemon as its own system user, so code running as the developer (which
 * is what an agent runs) cannot read its keys, rewrite its operator secrets or policy, cut its ledger or signal it.
 * It creates the user (home /var/lib/<user>), gives it the daemon's home (/var/lib/<user>/daemon, 0700), trusts the
 * developer's public signer keys (the long-lived keys stay with the developer: spec), hands the developer a copy of
 * the hook key so their shim can check answers, and runs the daemon under the system's service manager with the
 * hardening it offers: a systemd system unit on Linux, a LaunchDaemon on macOS. Where no service manager runs (this
 * machine's PID 1, a container's), it says the one command to run as root: `svc daemon --user <user>` drops to the
 * user by itself (cli/daemon/run-as.ts).
 */
import { execFileSync } from 'node:child_process'
import { chownSync, copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { ensureHookKey, HOOK_KEY_FILE } from '../../hook-key/index.ts'
import { lookupUser, type SystemUser } from '../daemon/run-as.ts'
import { trustLine } from '../daemon/trust-env.ts'
import { systemdArg, xml } from './units.ts'

/**
 * Where the service file goes: the system's directory, or `$SVC_SYSTEM_SERVICE_DIR` (a package build's staging
 * root, or a test that must not write the machine's /etc).
 */
const serviceDir = (platform: 'linux' | 'darwin', env: NodeJS.ProcessEnv) => env.SVC_SYSTEM_SERVICE_DIR || (platform === 'linux' ? '/etc/systemd/system' : '/Library/LaunchDaemons')
export const serviceFilePath = (platform: 'linux' | 'darwin', env: NodeJS.ProcessEnv) =>
  join(serviceDir(platform, env), platform === 'linux' ? 'svc-daemon.service' : 'dev.svc.daemon.plist')

export interface SystemSpec {
  readonly svcBin: string
  /** The daemon's account. */
  readonly user: string
  readonly port: number
  /** The developer whose agents svc gates: their keys are trusted, their shim gets the hook key. */
  readonly developer: SystemUser
  /** The developer's $SVC_HOME (their signer keys, their shim's copy of the hook key). */
  readonly developerHome: string
  readonly platform: 'linux' | 'darwin'
  /** The daemon's $SVC_HOME (default /var/lib/<user>/daemon; the account's home is where useradd puts it). */
  readonly home?: string
  readonly env: NodeJS.ProcessEnv
}

/** The account's home, and the daemon's home inside it (the ledger marker goes to the first, state to the second). */
export const userHomeOf = (user: string) => `/var/lib/${user}`
export const daemonHomeOf = (user: string) => join(userHomeOf(user), 'daemon')
const homeOf = (spec: SystemSpec) => spec.home ?? daemonHomeOf(spec.user)

/** The systemd system unit: the daemon's user, and every restriction that leaves it able to read projects. */
export function systemUnit(spec: SystemSpec, trusted: string, account: SystemUser): string {
  const home = homeOf(spec)
  const argv = [spec.svcBin, 'daemon', '--user', spec.user, '--home', home, '--port', String(spec.port)]
  return [
    '# Written by `svc service install --system`; `svc service uninstall --system` removes it.',
    '[Unit]',
    'Description=svc daemon (agent policy control plane), as its own user',
    'After=network.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${spec.user}`,
    `Group=${spec.user}`,
    `ExecStart=${argv.map(systemdArg).join(' ')}`,
    `Environment=${systemdArg(`SVC_HOME=${home}`)}`,
    // `~` in the agent's commands is the developer's home, not the daemon's account's.
    `Environment=${systemdArg(`SVC_USER_HOME=${spec.developer.home}`)}`,
    // The analysis reads with this account's rights only (plugins/shell-analysis/caller-access.ts).
    `Environment=${systemdArg(`SVC_CALLER_USER=${spec.developer.name}`)}`,
    ...(trusted ? [`Environment=${systemdArg(`SVC_TRUSTED_HOST_KEYS=${trusted}`)}`] : []),
    'Restart=on-failure',
    'RestartSec=2s',
    'UMask=0077',
    // The hook socket's directory (/run/svc/hook.sock, plugins/hook-socket): the daemon's alone to write, open to connect.
    'RuntimeDirectory=svc',
    'RuntimeDirectoryMode=0755',
    // Hardening: nothing to gain (no privileges, no devices, no kernel knobs), nothing to write but its own state.
    // Homes stay readable: the shell analysis reads the project's scripts, manifests and git config.
    'NoNewPrivileges=yes',
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    'ProtectSystem=strict',
    `ReadWritePaths=${[...new Set([account.home, home])].join(' ')}`,
    'ProtectHome=read-only',
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'RestrictSUIDSGID=yes',
    'RestrictRealtime=yes',
    'RestrictNamespaces=yes',
    'LockPersonality=yes',
    'SystemCallArchitectures=native',
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    'StandardOutput=journal',
    'StandardError=journal',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n')
}

/** launchd's daemon form: loaded by root at boot, run as the daemon's user (UserName). */
export function launchDaemon(spec: SystemSpec, trusted: string, account: SystemUser): string {
  const home = homeOf(spec)
  const argv = [spec.svcBin, 'daemon', '--user', spec.user, '--home', home, '--port', String(spec.port)]
  const env: Record<string, string> = {
    SVC_HOME: home,
    SVC_USER_HOME: spec.developer.home,
    SVC_CALLER_USER: spec.developer.name,
    PATH: '/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin',
    ...(trusted ? { SVC_TRUSTED_HOST_KEYS: trusted } : {}),
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `svc service install --system`; `svc service uninstall --system` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key><string>dev.svc.daemon</string>',
    `  <key>UserName</key><string>${xml(spec.user)}</string>`,
    `  <key>GroupName</key><string>${xml(spec.user)}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...argv.map((a) => `    <string>${xml(a)}</string>`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...Object.entries(env).map(([k, v]) => `    <key>${xml(k)}</key><string>${xml(v)}</string>`),
    '  </dict>',
    '  <key>Umask</key><integer>63</integer>',
    '  <key>RunAtLoad</key><true/>',
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    `  <key>StandardOutPath</key><string>${xml(join(account.home, 'daemon.log'))}</string>`,
    `  <key>StandardErrorPath</key><string>${xml(join(account.home, 'daemon.log'))}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n')
}

function run(file: string, args: string[]): { ok: boolean; out: string } {
  try {
    return { ok: true, out: execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 }).trim() }
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string }
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() || e.message }
  }
}

/** systemd runs as PID 1 (its own test: the runtime directory it creates at boot). */
export const systemdRuns = () => existsSync('/run/systemd/system')

/** The daemon's account, created when missing (Linux); its home is its own and closed. */
function ensureAccount(spec: SystemSpec): SystemUser {
  const home = userHomeOf(spec.user)
  let account: SystemUser | undefined
  try {
    account = lookupUser(spec.user)
  } catch {
    if (spec.platform !== 'linux')
      throw new Error(`no user ${spec.user}: create it first (macOS: \`sudo sysadminctl -addUser ${spec.user} -home ${home} -shell /usr/bin/false\` or dscl), then re-run`)
    const made = run('useradd', ['--system', '--user-group', '--home-dir', home, '--create-home', '--shell', '/usr/sbin/nologin', '--comment', 'svc daemon', spec.user])
    if (!made.ok) throw new Error(`useradd ${spec.user} failed: ${made.out}`)
    account = lookupUser(spec.user)
  }
  if (account.uid === 0) throw new Error(`--user ${spec.user} is root: the daemon's own user must not be`)
  if (account.uid === spec.developer.uid) throw new Error(`--user ${spec.user} is the developer's own account: nothing would be separated`)
  mkdirSync(account.home, { recursive: true, mode: 0o700 })
  chownSync(account.home, account.uid, account.gid)
  return account
}

export interface SystemInstallResult {
  readonly wrote: string[]
  /** What the user must still do (no service manager; no signer key to trust yet). */
  readonly notes: string[]
}

/** Sets everything up; the service manager starts the daemon, or the note says how. */
export function installSystem(spec: SystemSpec): SystemInstallResult {
  if (process.getuid?.() !== 0) throw new Error('`svc service install --system` needs root: run it with sudo')
  const account = ensureAccount(spec)
  const home = homeOf(spec)
  mkdirSync(home, { recursive: true, mode: 0o700 })
  const notes: string[] = []
  const wrote: string[] = []
  // The hook key is the daemon's; the developer's shim holds a copy to check answers with. Which process can answer
  // on the daemon's port is what the OS now decides: the developer's code can no longer stop the daemon to take it.
  ensureHookKey(home)
  mkdirSync(spec.developerHome, { recursive: true, mode: 0o700 })
  const copy = join(spec.developerHome, HOOK_KEY_FILE)
  copyFileSync(join(home, HOOK_KEY_FILE), copy)
  chownSync(spec.developerHome, spec.developer.uid, spec.developer.gid)
  chownSync(copy, spec.developer.uid, spec.developer.gid)
  wrote.push(copy)
  for (const file of ['', HOOK_KEY_FILE]) chownSync(join(home, file), account.uid, account.gid)
  // The analysis reads the developer's scripts, manifests and git config as the daemon's account: say so when their
  // home is closed to it (a 0750/0700 home); svc never loosens it itself. Until then it denies, naming the file.
  if ((statSync(spec.developer.home).mode & 0o001) === 0)
    notes.push(
      `${spec.developer.home} is closed to other accounts, so the daemon (as ${spec.user}) cannot read the projects in it and denies what it cannot analyse, naming the file: grant it read access, e.g. \`setfacl -m u:${spec.user}:rX ${spec.developer.home}\` (package acl) for the home and \`setfacl -R -m u:${spec.user}:rX <project>\` for each project`,
    )
  const trusted = trustLine(spec.developerHome)
  if (!trusted)
    notes.push(`${spec.developer.name} has no signer key yet: as ${spec.developer.name}, run \`svc signer enroll --tier <tier>\`, then re-run this command so the daemon trusts it`)
  writeFileSync(join(home, 'system.json'), `${JSON.stringify({ user: spec.user, port: spec.port, developer: spec.developer.name, developer_home: spec.developerHome })}\n`)
  chownSync(join(home, 'system.json'), account.uid, account.gid)
  const unitPath = serviceFilePath(spec.platform, spec.env)
  mkdirSync(dirname(unitPath), { recursive: true })
  writeFileAtomic.sync(unitPath, spec.platform === 'linux' ? systemUnit(spec, trusted, account) : launchDaemon(spec, trusted, account), { mode: 0o644 })
  wrote.push(unitPath)
  const direct = `SVC_USER_HOME=${spec.developer.home} SVC_CALLER_USER=${spec.developer.name} ${trusted ? `SVC_TRUSTED_HOST_KEYS="${trusted}" ` : ''}svc daemon --user ${spec.user} --home ${home} --port ${spec.port}`
  if (spec.platform === 'linux') {
    if (!systemdRuns()) notes.push(`systemd does not run here (PID 1 is not systemd): start the daemon as root with \`${direct}\`; it drops to ${spec.user} by itself`)
    else {
      run('systemctl', ['daemon-reload'])
      const started = run('systemctl', ['enable', '--now', 'svc-daemon.service'])
      // A re-install must pick up a changed unit: restart what was already running.
      if (started.ok) run('systemctl', ['restart', 'svc-daemon.service'])
      else notes.push(`systemctl enable --now svc-daemon.service failed: ${started.out}; start it with \`${direct}\``)
    }
  } else {
    run('launchctl', ['bootout', 'system/dev.svc.daemon'])
    const boot = run('launchctl', ['bootstrap', 'system', unitPath])
    if (!boot.ok) notes.push(`launchctl bootstrap system ${unitPath} failed: ${boot.out}`)
  }
  return { wrote, notes }
}

/** Stops and removes the service; the account and its state stay (the ledger is evidence): says how to remove them. */
export function uninstallSystem(platform: 'linux' | 'darwin', env: NodeJS.ProcessEnv): string[] {
  if (process.getuid?.() !== 0) throw new Error('`svc service uninstall --system` needs root: run it with sudo')
  const path = serviceFilePath(platform, env)
  if (!existsSync(path)) return []
  if (platform === 'linux' && systemdRuns()) run('systemctl', ['disable', '--now', 'svc-daemon.service'])
  if (platform === 'darwin') run('launchctl', ['bootout', 'system/dev.svc.daemon'])
  rmSync(path, { force: true })
  if (platform === 'linux' && systemdRuns()) run('systemctl', ['daemon-reload'])
  return [path]
}
