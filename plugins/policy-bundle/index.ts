/**
 * Signed policy bundles (feature): the daemon/registry/group layers from an OPA-layout bundle that a
 * security team signs and serves from any static origin, with trust roots and a floor in a root-owned
 * managed file. At initialize (before policy loads) it reads the managed file, sets the mode and pack floors and
 * re-verifies the last good bundle; the daemon's server starts the poller and closes it with the app.
 */
import type { EnginePlugin } from '../../core/index.ts'
import { modeFloorRegistry, packFloorRegistry } from '../../core/index.ts'
import { routes, service } from '../../daemon/index.ts'
import { BundleService } from './bundle-service.ts'
import { readManaged } from './managed.ts'

const NAME = 'feature:policy-bundle'

const plugin: EnginePlugin = {
  name: NAME,
  apply(host) {
    let bundles: BundleService | undefined
    host.hooks.initialize.tapPromise(NAME, async () => {
      // A managed file that is present but unsafe or malformed stops the engine: fail closed, never ignore it.
      const managed = readManaged(host.env)
      if (managed?.floor.mode) modeFloorRegistry(host.registry).set('mode', managed.floor.mode)
      for (const [pack, floor] of Object.entries(managed?.floor.packs ?? {})) packFloorRegistry(host.registry).set(pack, floor)
      bundles = new BundleService(host.home, managed, host.log)
      await bundles.restore()
    })
    host.bring(routes(async (app) => (await import('./routes.ts')).bundleRoutes(() => bundles!)(app)))
    // The poller runs only in a daemon, from when its routes are up until its server closes.
    host.bring(
      service('bundle-poller', ({ engine }) => {
        const running = bundles!
        running.start(engine)
        return { stop: () => running.close() }
      }),
    )
  },
}

export default plugin

// What `svc policy bundle` builds, signs and checks with (the same code the daemon verifies with).
/** The archive and verification code (tar, jose) for `svc policy bundle`: loaded when asked, never by a daemon's start. */
export async function loadBundleTools() {
  const [{ packBundle, unpackBundle }, { verifyBundle }] = await Promise.all([import('./archive.ts'), import('./verify.ts')])
  return { packBundle, unpackBundle, verifyBundle }
}
export { MANIFEST, refusedName, SIGNATURES } from './layout.ts'
export { parseManifest } from './manifest.ts'
export { readManaged } from './managed.ts'
export { generateSigningKey, signFiles, trustRoot } from './signature.ts'
