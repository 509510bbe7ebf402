/**
 * The guardrails feature: keeps the multi-stage trace of every decision a guardrail took part in (by
 * ledger seq) and serves the guardrail endpoints (providers, provider test, catalog, on/off switch,
 * traces). The providers themselves are plugins in guardrail-providers/.
 */
import { extensionRegistry, STAGE, type EnginePlugin } from '../../core/index.ts'
import { lazyRoutes } from '../../daemon/index.ts'
import { traceOf } from './trace.ts'
import { TraceStore } from './trace-store.ts'

const plugin: EnginePlugin = {
  name: 'feature:guardrails',
  apply({ hooks, registry, home, bring }) {
    bring(lazyRoutes(() => import('./routes.ts')))
    const slot = extensionRegistry<TraceStore>(registry, 'guardrail-traces')
    hooks.initialize.tapPromise({ name: 'guardrails', stage: STAGE.DEFAULT }, async () => {
      slot.set('store', new TraceStore(home))
    })
    hooks.ledgerAppend.tap({ name: 'guardrails', stage: STAGE.DEFAULT }, (entry, decision) => {
      if (decision?.guardrail) slot.get('store')?.put(traceOf(entry, { ...decision, guardrail: decision.guardrail }))
    })
    hooks.shutdown.tapPromise({ name: 'guardrails', stage: STAGE.LAST }, async () => {
      slot.get('store')?.close()
      slot.delete('store')
    })
  },
}

export default plugin
