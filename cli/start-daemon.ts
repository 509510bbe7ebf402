/**
 * The daemon as `svc daemon` runs it: the composition root's plugins (cli/plugins.ts), the shipped policy
 * packs, the package's version, `svc doctor` for the dashboard's Health page, the process's log and the host
 * keys its environment trusts. daemon/ takes all of these as options, so it never imports the CLI.
 */
import { mkdirSync } from 'node:fs'
import type { EnginePlugin } from '../core/index.ts'
import type { HarnessPlugin } from '../harness-contract/index.ts'
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../daemon/index.ts'
import { SHIPPED_POLICIES_DIR, VERSION } from './paths.ts'
import { allPlugins } from './plugins.ts'
import { lockHome } from './daemon/home-lock.ts'
import { daemonLogger } from './daemon/log.ts'
import { trustKeysFromEnv } from './daemon/trust-env.ts'

/** `plugins` replaces the composition root's list (tests register a fixture harness that way); default `allPlugins`. */
export type SvcDaemonOptions = Omit<DaemonOptions, 'plugins' | 'policiesDir' | 'version' | 'doctor' | 'log'> & {
  readonly policiesDir?: string
  readonly plugins?: readonly EnginePlugin[]
  /** The daemon's log; its own (JSON lines, or human lines on a terminal) when absent. */
  readonly log?: DaemonOptions['log']
}

export async function startSvcDaemon(opts: SvcDaemonOptions): Promise<RunningDaemon> {
  const plugins = opts.plugins ?? allPlugins
  // The harnesses doctor knows are the ones this daemon registered.
  const harnesses = plugins.flatMap((p) => ('harness' in p ? [(p as HarnessPlugin).harness] : []))
  const log = opts.log ?? daemonLogger(opts.env)
  // Keys handed over in SVC_TRUSTED_HOST_KEYS (a container's `docker run -e`) are trusted before the first session.
  mkdirSync(opts.home, { recursive: true, mode: 0o700 })
  const trusted = trustKeysFromEnv(opts.home, opts.env)
  if (trusted > 0) log.info({ added: trusted }, 'trusted host keys from SVC_TRUSTED_HOST_KEYS')
  const lock = lockHome(opts.home)
  let daemon: RunningDaemon
  try {
    daemon = await startDaemon({
      ...opts,
      log,
      plugins,
      policiesDir: opts.policiesDir ?? SHIPPED_POLICIES_DIR,
      version: VERSION,
      // Its modules load only when the dashboard's Health page asks.
      doctor: async (apiUrl) => (await import('./commands/doctor.ts')).doctorCheck(apiUrl, opts.home, opts.env, process.cwd(), harnesses),
    })
  } catch (err) {
    lock.release()
    throw err
  }
  // The next daemon on this home (a restart in the same process, as tests do) may start once this one has closed.
  const close = daemon.close.bind(daemon)
  return Object.assign(daemon, { close: () => close().finally(() => lock.release()) })
}
