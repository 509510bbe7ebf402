/**
 * The daemon as `svc daemon` runs it: the composition root's plugins (cli/plugins.ts), the shipped policy
 * packs, the package's version, and `svc doctor` for the dashboard's Health page. daemon/ takes all of these
 * as options, so it never imports the CLI.
 */
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../daemon/index.ts'
import { SHIPPED_POLICIES_DIR, VERSION } from './paths.ts'
import { allPlugins } from './plugins.ts'

export type SvcDaemonOptions = Omit<DaemonOptions, 'plugins' | 'policiesDir' | 'version' | 'doctor'> & { readonly policiesDir?: string }

export function startSvcDaemon(opts: SvcDaemonOptions): Promise<RunningDaemon> {
  return startDaemon({
    ...opts,
    plugins: allPlugins,
    policiesDir: opts.policiesDir ?? SHIPPED_POLICIES_DIR,
    version: VERSION,
    // Its modules load only when the dashboard's Health page asks.
    doctor: async (apiUrl) => (await import('./commands/doctor.ts')).doctorCheck(apiUrl, opts.home, opts.env),
  })
}
