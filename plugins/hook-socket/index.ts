/**
 * The hook route on a Unix socket (`SVC_HOOK_SOCKET=<path>`, set by `svc daemon --user`): a daemon under its own
 * account also serves the hook endpoints on a socket in a directory only that account can write, so no process
 * of the developer's uid can bind or replace it (the TCP port stays for the API and dashboard). `svc install`
 * points the hooks at it when the daemon is separated (plugins/installer/hook-route.ts). See docs/system-daemon.md.
 * @module
 */
import type { EnginePlugin } from '../../core/index.ts'
import { service } from '../../daemon/index.ts'
import { startHookSocket } from './server.ts'

const plugin: EnginePlugin = {
  name: 'feature:hook-socket',
  apply(host) {
    // Off without SVC_HOOK_SOCKET; a socket directory others could write throws, so the daemon does not start.
    host.bring(service('hook-socket', ({ app, env, log }) => (env.SVC_HOOK_SOCKET ? startHookSocket(app, env.SVC_HOOK_SOCKET, log) : undefined)))
  },
}
export default plugin

export { DEFAULT_HOOK_SOCKET, socketDirProblem } from './server.ts'
