/**
 * The daemon's fleet loops as engine plugins: OTLP export (`SVC_OTLP_ENDPOINT`) and witnessing
 * (`SVC_WITNESS_POLICY`) start when the daemon builds its server and stop with it (Fastify `onClose`), like
 * the policy-bundle plugin; one-shot CLI engines never start them. They live on the CLI side because their
 * machinery (cli/fleet/) composes several plugin folders, which plugin folders may not import.
 */
import type { EnginePlugin } from '../../core/index.ts'
import { service } from '../../daemon/index.ts'
import { SqliteLedger } from '../../core/ledger/ledger.ts'
import { startOtlpExport } from './otlp-daemon.ts'
import { startWitnessing } from './witness-daemon.ts'

export const otlpExportPlugin: EnginePlugin = {
  name: 'feature:otlp-export-daemon',
  apply(host) {
    // A bad setting throws here, so the daemon does not start.
    host.bring(service('otlp-export', ({ engine, env }) => startOtlpExport(engine.home, env, host.log)))
  },
}

export const witnessPlugin: EnginePlugin = {
  name: 'feature:witness-daemon',
  apply(host) {
    host.bring(
      service('witnessing', ({ engine, env }) => {
        if (!env.SVC_WITNESS_POLICY) return undefined
        const ledger = engine.ledger
        if (!(ledger instanceof SqliteLedger)) throw new Error('SVC_WITNESS_POLICY needs the daemon\'s SQLite ledger')
        return startWitnessing(engine.home, env, ledger, host.log)
      }),
    )
  },
}
