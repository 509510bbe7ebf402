/**
 * `svc service install|uninstall|status`: runs the daemon (and optionally the renewer, `svc agent`) as a
 * per-user service that starts at login and restarts on failure: systemd user units on Linux, launchd
 * LaunchAgents on macOS (see cli/service/units.ts for what is written).
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { Command, InvalidArgumentError, Option } from 'commander'
import { CliError, type CliIo } from '../io.ts'
import { DEFAULT_PORT, PROJECT_ROOT, svcHome } from '../paths.ts'
import { installServices, serviceStates, uninstallServices } from '../service/manager.ts'
import { serviceFiles, type ServicePlatform, type ServiceSpec } from '../service/units.ts'
import { daemonHomeOf, installSystem, uninstallSystem } from '../service/system.ts'
import { lookupUser } from '../daemon/run-as.ts'

interface ServiceOptions {
  port: number
  home?: string
  agent?: string
}

interface SystemOptions {
  system?: boolean
  user: string
  for?: string
}

/** `--system`: the daemon as its own user, for the developer `--for` names (default: the one who ran sudo). */
function installAsSystem(io: CliIo, opts: ServiceOptions & SystemOptions): void {
  const name = opts.for ?? io.env.SUDO_USER
  if (!name) throw new CliError("--system gates one developer's agents: name them with --for <login> (sudo sets SUDO_USER when you run it through sudo)")
  if (opts.agent)
    throw new CliError(
      '--system runs the daemon only: the renewer stays with the developer (as them: `svc service install --agent <tier>` is not for --system; run `svc agent` in their session)',
    )
  const developer = lookupUser(name)
  const platform = process.platform === 'darwin' ? 'darwin' : 'linux'
  const { wrote, notes } = installSystem({
    svcBin: realpathSync(join(PROJECT_ROOT, 'cli', 'svc.sh')),
    user: opts.user,
    port: opts.port,
    developer,
    developerHome: join(developer.home, '.svc'),
    platform,
    ...(opts.home ? { home: opts.home } : {}),
    env: io.env,
  })
  for (const path of wrote) io.out(`wrote ${path}`)
  const home = opts.home ?? daemonHomeOf(opts.user)
  io.out(`the daemon runs as ${opts.user} with its state in ${home}; ${developer.name}'s agents cannot read, rewrite or signal it`)
  io.out(`operator password: \`sudo svc auth set-password --home ${home}\``)
  for (const note of notes) io.err(`note: ${note}`)
}

function platformOf(): ServicePlatform {
  if (process.platform === 'linux') return 'systemd'
  if (process.platform === 'darwin') return 'launchd'
  throw new CliError(`svc service supports Linux (systemd) and macOS (launchd), not ${process.platform}: run \`svc daemon\` under your own supervisor`)
}

function parsePort(value: string): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new InvalidArgumentError('must be a port number from 1 to 65535')
  return port
}

/** What install writes (and status compares against) for these options. */
export function specFor(io: CliIo, opts: ServiceOptions): ServiceSpec {
  const env: Record<string, string> = {}
  // The software signer is refused on both sides unless switched on (dev/CI only).
  if (opts.agent === 'software') env.SVC_ALLOW_SOFTWARE_SIGNER = '1'
  if (io.env.SVC_PROTECTED_PORTS) env.SVC_PROTECTED_PORTS = io.env.SVC_PROTECTED_PORTS
  return {
    svcBin: realpathSync(join(PROJECT_ROOT, 'cli', 'svc.sh')),
    home: svcHome(io.env, opts.home),
    port: opts.port,
    agentTier: opts.agent,
    env,
    userHome: io.env.HOME || homedir(),
  }
}

/** The options of the last `svc service install`, kept in the home so status and uninstall need none. */
const recordPath = (home: string) => join(home, 'service.json')

/** The installed service's options (defaults when none was installed). */
export function installedServiceOptions(io: CliIo, home?: string): ServiceOptions & { recorded: boolean } {
  try {
    const recorded = JSON.parse(readFileSync(recordPath(svcHome(io.env, home)), 'utf8')) as ServiceOptions
    return { port: recorded.port, agent: recorded.agent, home: recorded.home, recorded: true }
  } catch {
    return { port: DEFAULT_PORT, home, recorded: false }
  }
}

/** The expected service files and their state on this machine. */
export function serviceReport(io: CliIo, home?: string) {
  const platform = platformOf()
  const opts = installedServiceOptions(io, home)
  return { platform, opts, states: serviceStates(platform, serviceFiles(platform, specFor(io, opts), io.env), io.env) }
}

/** One line per service file for status and doctor. */
export function describeService(s: ReturnType<typeof serviceStates>[number]): string {
  if (!s.installed) return `${s.file.id}: not installed (${s.file.path})`
  return `${s.file.id}: installed, ${s.current ? 'current' : 'stale (differs from what `svc service install` writes now: re-run it)'}, ${s.running === 'unknown' ? 'state unknown (service manager not reachable)' : s.running} (${s.file.path})`
}

export function makeServiceCommand(io: CliIo): Command {
  const service = new Command('service').description('run the daemon (and the session renewer) as a per-user service: systemd on Linux, launchd on macOS')
  const install = new Command('install')
    .description('write and load the service files (restart on failure, start at login)')
    .addOption(new Option('--port <port>', 'daemon API port').default(DEFAULT_PORT).argParser(parsePort))
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .addOption(new Option('--agent <tier>', 'also run `svc agent --tier <tier>` so sessions renew themselves').choices(['software', 'os-keychain', 'totp']))
    .option('--system', "root: run the daemon as its own system user (systemd system unit / LaunchDaemon), out of the developer's reach")
    .option('--user <name>', "with --system: the daemon's account (created when missing)", 'svc')
    .option('--for <login>', 'with --system: the developer whose agents it gates (default: $SUDO_USER)')
    .action((opts: ServiceOptions & SystemOptions) => {
      if (opts.system) return installAsSystem(io, opts)
      // A service has no terminal: a TOTP renewer there could never ask for the code it needs at every mint.
      if (opts.agent === 'totp')
        throw new CliError(
          '--agent totp cannot work as a service: every TOTP mint needs a fresh code typed by a person, and a service has no terminal to ask in. Install the daemon service alone and run `svc agent --tier totp` in a terminal of your login session (it asks once per renewal), or choose --agent os-keychain',
          2,
        )
      const platform = platformOf()
      const spec = specFor(io, opts)
      const files = serviceFiles(platform, spec, io.env)
      // A re-install without --agent removes an agent service installed before.
      uninstallServices(
        platform,
        serviceFiles(platform, { ...spec, agentTier: 'software' }, io.env).filter((f) => !files.some((g) => g.path === f.path)),
        io.env,
      )
      mkdirSync(spec.home, { recursive: true, mode: 0o700 })
      writeFileSync(recordPath(spec.home), `${JSON.stringify({ port: opts.port, agent: opts.agent, home: spec.home })}\n`)
      const result = installServices(platform, files, io.env)
      for (const f of files) io.out(`wrote ${f.path}`)
      if (!result.ok) {
        io.err(`warning: ${result.note}`)
        return
      }
      io.out(`loaded ${files.map((f) => f.id).join(', ')}; logs: ${platform === 'systemd' ? `journalctl --user -u ${files[0]!.id}` : '~/Library/Logs/svc/'}`)
    })
  const uninstall = new Command('uninstall')
    .description('stop and remove the service files')
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .option('--system', 'root: remove the system service `--system` installed (its user and state stay)')
    .option('--user <name>', "with --system: the daemon's account", 'svc')
    .action((opts: { home?: string; system?: boolean; user: string }) => {
      if (opts.system) {
        const removed = uninstallSystem(process.platform === 'darwin' ? 'darwin' : 'linux', io.env)
        io.out(removed.length > 0 ? `removed ${removed.join(', ')}` : 'no svc system service is installed; nothing to remove')
        io.out(
          `kept: the user ${opts.user} and its state ${daemonHomeOf(opts.user)} (the ledger is evidence); remove them with \`userdel ${opts.user} && rm -rf /var/lib/${opts.user}\``,
        )
        return
      }
      const platform = platformOf()
      const installed = installedServiceOptions(io, opts.home)
      const removed = uninstallServices(platform, serviceFiles(platform, specFor(io, { ...installed, agent: 'software' }), io.env), io.env)
      rmSync(recordPath(svcHome(io.env, installed.home)), { force: true })
      io.out(removed.length > 0 ? `removed ${removed.join(', ')}` : 'no svc service is installed; nothing to remove')
    })
  const status = new Command('status')
    .description('show whether the service files are installed, current and running (non-zero exit when the daemon service is not installed)')
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .action((opts: { home?: string }) => {
      const { states } = serviceReport(io, opts.home)
      for (const s of states) io.out(describeService(s))
      if (!states[0]!.installed) throw new CliError('the daemon service is not installed: run `svc service install`')
    })
  return service.addCommand(install).addCommand(uninstall).addCommand(status)
}
