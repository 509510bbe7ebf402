/**
 * Operator secrets the agent cannot rewrite: the daemon reads the operator password hash (`$SVC_HOME/auth.json`)
 * once, at start (daemon/auth), so code running as the same user that rewrites the file does not become the
 * operator. This plugin's service watches the file and records a change in the ledger (`config_changed`, once per
 * new content) and the log: the change is refused until an operator restarts the daemon on purpose.
 * @module
 */
import type { EnginePlugin } from '../../core/index.ts'
import { service } from '../../daemon/index.ts'
import { watchAuthFile } from './auth-file-watch.ts'

const plugin: EnginePlugin = {
  name: 'feature:operator-secrets',
  apply(host) {
    host.bring(service('operator-secrets', ({ engine, log }) => watchAuthFile(engine.home, engine, log)))
  },
}
export default plugin
