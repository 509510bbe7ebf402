/** Every route of the MCP pin plugin, loaded only when the daemon builds its server (see `lazyRoutes`). */
import type { FastifyInstance } from 'fastify'
import mcpRoutes from './routes.ts'
import proxyRoutes from './proxy-routes.ts'
import serversRoute from './servers-route.ts'
import trafficRoute from './traffic-route.ts'

export default async function allMcpRoutes(app: FastifyInstance): Promise<void> {
  await app.register(mcpRoutes)
  await app.register(proxyRoutes)
  await app.register(serversRoute)
  await app.register(trafficRoute)
}
