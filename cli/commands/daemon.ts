/** `svc daemon`: runs the daemon in the foreground until SIGTERM/SIGINT, then shuts down gracefully. */
import { Command, InvalidArgumentError, Option } from 'commander'
import { collectWhenIdle } from '../daemon/idle-gc.ts'
import { warmUp } from '../daemon/warm-up.ts'
import { CliError, type CliIo } from '../io.ts'
import { DEFAULT_DASHBOARD_PORT, DEFAULT_PORT, svcHome } from '../paths.ts'
import { startSvcDaemon } from '../start-daemon.ts'
import { runAs } from '../daemon/run-as.ts'
import { corruptDatabaseMessage, isCorruptDatabase } from '../daemon/corrupt-db.ts'

function parsePort(value: string): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port < 0 || port > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535')
  return port
}

/**
 * The dashboard's port: `--dashboard-port`, else `SVC_DASHBOARD_PORT`, else 7879 next to the default API port and
 * a free one (logged) next to any other, so two daemons on different API ports never fight over 7879.
 */
export function dashboardPort(flag: number | undefined, env: NodeJS.ProcessEnv, apiPort: number): number {
  if (flag !== undefined) return flag
  const raw = env.SVC_DASHBOARD_PORT
  if (raw !== undefined && raw !== '') {
    try {
      return parsePort(raw)
    } catch {
      throw new Error(`SVC_DASHBOARD_PORT=${raw}: must be a port number from 0 to 65535`)
    }
  }
  return apiPort === DEFAULT_PORT ? DEFAULT_DASHBOARD_PORT : 0
}

export function makeDaemonCommand(io: CliIo): Command {
  return new Command('daemon')
    .description('run the svc daemon in the foreground (API on 127.0.0.1)')
    .addOption(new Option('--port <port>', 'API port').default(DEFAULT_PORT).argParser(parsePort))
    .addOption(
      new Option('--dashboard-port <port>', 'web dashboard port (default $SVC_DASHBOARD_PORT, else 7879 with the default --port, else any free port; 0 picks one)').argParser(
        parsePort,
      ),
    )
    .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
    .option('--host <address>', 'listen address (default 127.0.0.1; 0.0.0.0 inside a container)')
    .option('--allow-non-loopback', 'allow a non-loopback --host outside a container (exposes the API)')
    .option(
      '--new-ledger',
      "start a new ledger although $SVC_HOME/checkpoints.log or the ledger marker says one existed here (only over an absent or empty ledger.db; the new ledger's first leaf names the one it replaces)",
    )
    .option(
      '--user <name>',
      "run as this system user, out of the developer's reach (started as root, the daemon makes --home that user's and drops to it; `svc service install --system` sets this up)",
    )
    .option('--dev-session', 'after start, mint a development session with the software signer (needs SVC_ALLOW_SOFTWARE_SIGNER=1; `npm start` sets it)')
    .action(
      async (opts: {
        port: number
        dashboardPort?: number
        home?: string
        host?: string
        allowNonLoopback?: boolean
        devSession?: boolean
        newLedger?: boolean
        user?: string
      }) => {
        const home = svcHome(io.env, opts.home)
        // Before anything is opened: every file, port and thread of the daemon belongs to its own user.
        const env = opts.user ? runAs(opts.user, home, io.env) : io.env
        // Handlers go in before the daemon announces itself: a SIGTERM right after "listening" still shuts down gracefully.
        let signalled: string | undefined
        let onSignal: (signal: string) => void = (signal) => void (signalled = signal)
        process.once('SIGTERM', () => onSignal('SIGTERM'))
        process.once('SIGINT', () => onSignal('SIGINT'))
        const daemon = await startSvcDaemon({
          home,
          port: opts.port,
          host: opts.host,
          allowNonLoopback: opts.allowNonLoopback,
          env,
          newLedger: opts.newLedger,
          dashboardPort: dashboardPort(opts.dashboardPort, env, opts.port),
        }).catch((err: unknown) => {
          // SQLite's "database disk image is malformed" names no file: name it, and say nothing was changed.
          throw isCorruptDatabase(err) ? new CliError(corruptDatabaseMessage(home, err as Error)) : err
        })
        if (opts.devSession) {
          try {
            // The signers load only for --dev-session (`npm start`), not at every daemon start.
            const { mintOnDaemon } = await import('../signer/mint-flow.ts')
            const minted = await mintOnDaemon({ ...io, env }, { tier: 'software', home, baseUrl: daemon.url })
            io.err(`development session ${minted.session_id} (signer software, expires ${minted.expires_at}); the ledger is signed with a key kept on disk`)
          } catch (err) {
            await daemon.close()
            throw err
          }
        }
        // The first call of every kind as fast as the next ones (compiled paths, loaded grammars); then, once
        // quiet, a long-lived process gives back what starting it (and each busy spell) left behind.
        const warm = warmUp(daemon.engine, daemon.app.log)
        const idleGc = collectWhenIdle(daemon.app.log)
        await new Promise<void>((resolve) => {
          const stop = (signal: string) => {
            warm.stop()
            idleGc.stop()
            daemon.app.log.info({ signal }, 'shutting down')
            daemon.close().then(resolve, resolve)
          }
          if (signalled) stop(signalled)
          else onSignal = stop
        })
      },
    )
}
