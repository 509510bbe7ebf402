/**
 * The harness installer as a feature plugin: POST /v1/install/plan, /v1/install/apply and /v1/uninstall.
 * Each harness folder only describes its entries (`installPlan`, `isOurs`); this folder plans, diffs,
 * applies atomically with backups, keeps the manifest and ships the POSIX shim. The CLI uses the same
 * modules in-process (`svc install`, `svc status`, `svc doctor`) through the exports below: the light ones
 * directly, the config editors (JSONC, TOML, diff, ajv) through loaders, since every engine loads this face.
 * @module
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

export { harnessEnvOf } from './harness-env.ts'
export { entriesOf, readManifest, type Manifest } from './manifest.ts'
export { networkNeeds } from './network-needs.ts'
export { sandboxFacts } from './sandbox-facts.ts'
export { sandboxProbes, type ProbeResult } from './sandbox-probe.ts'
export { HarnessSelectionError, selectHarnesses } from './select.ts'
export { shimPath, shimState } from './shim.ts'
export type { Plan } from './plan.ts'

/** Planning, applying and validating installs (loads the config editors and ajv). */
export function loadInstallTools(): Promise<typeof import('./tools.ts')> {
  return import('./tools.ts')
}

/** What `svc status` checks in installed configs: entries still present (a JSONC parser). */
export function loadInstallChecks(): Promise<typeof import('./checks.ts')> {
  return import('./checks.ts')
}
