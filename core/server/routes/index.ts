/** Every route plugin of the API, registered in this order. Adding an endpoint group is one line here. */
import type { FastifyInstance } from 'fastify'
import authRoutes from './auth.ts'
import checkRoutes from './check.ts'
import gateRoutes from './gates.ts'
import healthRoutes from './health.ts'
import hookRoutes from './hooks.ts'
import installRoutes from './install.ts'
import mcpRoutes from './mcp.ts'
import modeRoutes from './mode.ts'
import ledgerRoutes from './ledger.ts'
import sessionRoutes from './sessions.ts'

/** Every route plugin of the API, in registration order; a new route file is one line here. */
export const routes: readonly ((app: FastifyInstance) => Promise<void>)[] = [healthRoutes, modeRoutes, authRoutes, checkRoutes, gateRoutes, sessionRoutes, ledgerRoutes, hookRoutes, installRoutes, mcpRoutes]
