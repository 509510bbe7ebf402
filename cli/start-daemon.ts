/**
 * The daemon as `svc daemon` runs it: the composition root's plugins (cli/plugins.ts), the shipped policy
 * packs, the package's version, and `svc doctor` for the dashboard's Health page. daemon/ takes all of these
 * as options, so it never imports the CLI.
 */
import type { EnginePlugin, HarnessPlugin } from '../core/index.ts'
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../daemon/index.ts'
import { SHIPPED_POLICIES_DIR, VERSION } from './paths.ts'
import { allPlugins } from './plugins.ts'

/** `plugins` replaces the composition root's list (tests register a fixture harness that way); default `allPlugins`. */
export type SvcDaemonOptions = Omit<DaemonOptions, 'plugins' | 'policiesDir' | 'version' | 'doctor'> & { readonly policiesDir?: string; readonly plugins?: readonly EnginePlugin[] }

export function startSvcDaemon(opts: SvcDaemonOptions): Promise<RunningDaemon> {
  const plugins = opts.plugins ?? allPlugins
  // The harnesses doctor knows are the ones this daemon registered.
  const harnesses = plugins.flatMap((p) => ('harness' in p ? [(p as HarnessPlugin).harness] : []))
  return startDaemon({
    ...opts,
    plugins,
    policiesDir: opts.policiesDir ?? SHIPPED_POLICIES_DIR,
    version: VERSION,
    // Its modules load only when the dashboard's Health page asks.
    doctor: async (apiUrl) => (await import('./commands/doctor.ts')).doctorCheck(apiUrl, opts.home, opts.env, process.cwd(), harnesses),
  })
}
