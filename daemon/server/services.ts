/** Starts the background services plugins brought (daemon/surfaces.ts) and stops them, newest first, when the app closes. */
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Engine } from '../../core/index.ts'
import { backgroundServices, type RunningService } from '../surfaces.ts'

export async function startServices(
  app: FastifyInstance,
  opts: { readonly engine: Engine; readonly env: Readonly<Record<string, string | undefined>>; readonly version: string; readonly logger?: Logger },
): Promise<void> {
  const running: RunningService[] = []
  app.addHook('onClose', async () => {
    for (const service of running.reverse()) await service.stop()
  })
  const log = opts.logger ?? opts.engine.log
  for (const service of backgroundServices(opts.engine.registry).values()) {
    const started = await service.start({ app, engine: opts.engine, env: opts.env, version: opts.version, log: log.child({ service: service.name }) })
    if (started) running.push(started)
  }
}
