/**
 * feature:dashboard — the web dashboard the daemon serves on its own port (7879 by default). It has no logic
 * of its own for changes: its JSON endpoints answer through the API app in-process with the operator token its
 * login obtained, so every change runs the same route and writes the same ledger entry as the CLI.
 */
import { daemonListeners, type EnginePlugin } from '../../core/index.ts'
import { LiveFeed } from './live-feed.ts'
import { buildDashboard } from './server.ts'

const plugin: EnginePlugin = {
  name: 'feature:dashboard',
  apply(host) {
    const feed = new LiveFeed()
    host.hooks.ledgerAppend.tap('feature:dashboard', (entry) => feed.appended(entry.seq))
    daemonListeners(host.registry).set('dashboard', { name: 'dashboard', build: (api, opts) => buildDashboard({ api, feed, env: opts.env, log: opts.log }) })
  },
}
export default plugin
