/**
 * Signed policy bundles (feature): the daemon/registry/group layers from an OPA-layout bundle that a
 * security team signs and serves from any static origin, with trust roots and a floor in a root-owned
 * managed file. At initialize (before policy loads) it reads the managed file, sets the mode floor and
 * re-verifies the last good bundle; the daemon's server starts the poller and closes it with the app.
 */
import type { EnginePlugin } from '../../core/index.ts'
import { modeFloorRegistry } from '../../core/index.ts'
import { BundleService } from './bundle-service.ts'
import { readManaged } from './managed.ts'

const NAME = 'feature:policy-bundle'

const plugin: EnginePlugin = {
  name: NAME,
  apply(host) {
    let service: BundleService | undefined
    host.hooks.initialize.tapPromise(NAME, async () => {
      // A managed file that is present but unsafe or malformed stops the engine: fail closed, never ignore it.
      const managed = readManaged(host.env)
      if (managed?.floor.mode) modeFloorRegistry(host.registry).set('mode', managed.floor.mode)
      service = new BundleService(host.home, managed, host.log)
      await service.restore()
    })
    host.addRoutes(async (app) => {
      const { bundleRoutes } = await import('./routes.ts')
      const running = service!
      running.start(app.engine)
      app.addHook('onClose', () => running.close())
      await bundleRoutes(() => running)(app)
    })
  },
}

export default plugin
