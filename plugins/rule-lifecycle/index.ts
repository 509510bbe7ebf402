/**
 * Rule lifecycle (feature): keeps the exact call behind every decision leaf in `$SVC_HOME/payloads.db` (an
 * observer of `ledgerAppend`, checked against the leaf's payload_hash) and brings the false-positive
 * workflow's routes (case bundles, validate, apply, revert) and the redacted call view `svc log` shows.
 * The named exports are its face for the CLI (`svc explain`, `svc ledger verify`, `svc policy test`,
 * `svc false-positive`); what loads YAML comes through `loadRuleAuthoring()`, since every engine loads this face.
 * @module
 */
import { join } from 'node:path'
import type { EnginePlugin } from '../../core/index.ts'
import { routes } from '../../daemon/index.ts'
import { DEFAULT_RETENTION, PayloadStore, retentionFrom, type Retention } from './payload-store.ts'

/** The payload store's file in `$SVC_HOME`. */
export const PAYLOADS_FILE = 'payloads.db'

const plugin: EnginePlugin = {
  name: 'feature:rule-lifecycle',
  apply(host) {
    let store: PayloadStore | undefined
    const open = (retention: Retention = DEFAULT_RETENTION) =>
      (store ??= new PayloadStore(join(host.home, PAYLOADS_FILE), retention, {
        onError: (err) => host.log.error({ err }, 'payloads.db: a batch of calls could not be stored (their leaves keep the hashes)'),
      }))
    host.hooks.ledgerAppend.tap('feature:rule-lifecycle', (entry, _decision, payloadBytes) => {
      if (entry.kind === 'decision' && payloadBytes) open().put(entry.seq, entry.payloadHash, payloadBytes, entry.at)
    })
    host.bring(
      routes(async (app) => {
        // The route modules load only when a daemon builds its server (see lazyRoutes in daemon/surfaces.ts).
        const { falsePositiveRoutes } = await import('./routes.ts')
        // The daemon's environment sets retention; the store is opened here (or at the first decision), never in apply.
        open(retentionFrom(app.env)).bindLedger(app.engine.ledger.origin)
        app.addHook('onClose', async () => {
          store?.close()
          store = undefined
        })
        await falsePositiveRoutes(() => open())(app)
      }),
    )
  },
}

export default plugin

export { explainGates, type GateLine } from './explain.ts'
export { harnessCall } from './harness-call.ts'
export { PayloadStore, verifyPayloads } from './payload-store.ts'
export type { BundleView } from './draft.ts'

/** Gate fixtures (parse, find, run, describe) and replacement drafts, for rule authors: loads the YAML parser. */
export function loadRuleAuthoring(): Promise<typeof import('./authoring.ts')> {
  return import('./authoring.ts')
}
