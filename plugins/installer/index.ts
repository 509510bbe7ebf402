/**
 * The harness installer as a feature plugin: POST /v1/install/plan, /v1/install/apply and /v1/uninstall.
 * Each harness folder only describes its entries (`installPlan`, `isOurs`); this folder plans, diffs,
 * applies atomically with backups, keeps the manifest and ships the POSIX shim. The CLI uses the same
 * modules in-process (`svc install`).
 */
import type { EnginePlugin } from '../../core/index.ts'
import { lazyRoutes } from '../../daemon/index.ts'

const plugin: EnginePlugin = {
  name: 'feature:installer',
  apply(host) {
    host.bring(lazyRoutes(() => import('./routes.ts')))
  },
}

export default plugin
