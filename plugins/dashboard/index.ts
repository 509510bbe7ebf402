/**
 * feature:dashboard — the web dashboard the daemon serves on its own port (7879 by default). It has no logic
 * of its own for changes: its JSON endpoints answer through the API app in-process with the operator token its
 * login obtained, so every change runs the same route and writes the same ledger entry as the CLI.
 */
import type { FastifyInstance } from 'fastify'
import type { EnginePlugin } from '../../core/index.ts'
import { listener, type DaemonListenerOptions } from '../../daemon/index.ts'
import { LiveFeed } from './live-feed.ts'

const plugin: EnginePlugin = {
  name: 'feature:dashboard',
  apply(host) {
    const feed = new LiveFeed()
    host.hooks.ledgerAppend.tap('feature:dashboard', (entry) => feed.appended(entry.seq))
    // The server module (Fastify app, page files) loads only when a daemon builds the listener, not for `svc explain`.
    const build = async (api: FastifyInstance, opts: DaemonListenerOptions) => (await import('./server.ts')).buildDashboard({ api, feed, ...opts })
    host.bring(listener('dashboard', build))
  },
}
export default plugin
