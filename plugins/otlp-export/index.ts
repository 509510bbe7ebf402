/**
 * The ledger shipped to an OpenTelemetry collector (`SVC_OTLP_ENDPOINT`): a background service of the daemon
 * (daemon.ts) follows the ledger on a thread of its own and ships every leaf, signed checkpoint and witness
 * cosignature once the collector accepts it (the ledger is the outbox, the cursor moves only on acceptance).
 * One-shot engines never start it, and nothing here loads OpenTelemetry until an export is opened. The named
 * exports are the plugin's public face for the CLI (`svc export`, `svc fleet verify`).
 * @module
 */
import type { EnginePlugin } from '../../core/index.ts'
import { service } from '../../daemon/index.ts'
import { startOtlpExport } from './daemon.ts'

const plugin: EnginePlugin = {
  name: 'feature:otlp-export',
  apply(host) {
    // Off without SVC_OTLP_ENDPOINT; a bad setting throws when the service starts, so the daemon does not start.
    host.bring(service('otlp-export', startOtlpExport))
  },
}
export default plugin

export { parseHeaders } from './headers.ts'
export { EVENT } from './record.ts'

/** The one-shot export (`openOtlpExport`, `ExportRefused`): loads OpenTelemetry, so only when asked. */
export function loadOtlpExport(): Promise<typeof import('./setup.ts')> {
  return import('./setup.ts')
}
