/**
 * The core's own routes, registered in this order. Features bring theirs through `PluginHost.addRoutes`
 * (see docs/architecture.md); only a core endpoint group is a line here.
 */
import type { FastifyInstance } from 'fastify'
import authRoutes from './auth.ts'
import checkRoutes from './check.ts'
import gateRoutes from './gates.ts'
import healthRoutes from './health.ts'
import hookRoutes from './hooks.ts'
import modeRoutes from './mode.ts'
import ledgerRoutes from './ledger.ts'
import sessionRoutes from './sessions.ts'

/** The core route plugins, in registration order. */
export const routes: readonly ((app: FastifyInstance) => Promise<void>)[] = [healthRoutes, modeRoutes, authRoutes, checkRoutes, gateRoutes, sessionRoutes, ledgerRoutes, hookRoutes]
