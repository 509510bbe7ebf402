/**
 * C2SP witnessing of the ledger's checkpoints (`SVC_WITNESS_POLICY=<tlog-policy file>`): a background service
 * of the daemon (daemon.ts) countersigns the newest checkpoint with the host's log key, submits it to the
 * policy's witnesses and keeps their verified cosignatures beside the ledger and in its `cosignatures` view
 * (GET /v1/ledger/root, the OTLP export). One-shot engines never start it. The named exports are the plugin's
 * public face for the CLI (`svc ledger verify`, `svc ledger log-key`, `svc fleet verify`, `svc export`).
 * @module
 */
import type { EnginePlugin } from '../../core/index.ts'
import { service } from '../../daemon/index.ts'
import { startWitnessing } from './daemon.ts'
import { startWatermark } from './watermark-service.ts'

const plugin: EnginePlugin = {
  name: 'feature:witness',
  apply(host) {
    // Off without SVC_WITNESS_POLICY; a policy file that does not parse throws, so the daemon does not start.
    host.bring(service('witnessing', ({ engine, env, log }) => startWitnessing(engine.home, env, engine.ledger, log)))
    // The ledger's signed size kept outside it (watermark.ts): a daemon never starts on a ledger cut short.
    host.bring(service('ledger-watermark', ({ engine, env }) => startWatermark(engine.home, env as NodeJS.ProcessEnv, engine.ledger)))
  },
}
export default plugin

export { cosign, cosignerVkey, parseWitnessVkey, verifyCosignature } from './cosignature.ts'
export { loadLogKey } from './log-key.ts'
export { parseWitnessPolicy, type WitnessPolicy } from './policy.ts'
export { readWitnessState, WITNESS_STATE_FILE, witnessCosignatures } from './state.ts'
export { belowRecords, watermarkPath } from './watermark.ts'
