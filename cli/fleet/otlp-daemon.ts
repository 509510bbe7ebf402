/**
 * The daemon's continuous export (`SVC_OTLP_ENDPOINT` set): a follow loop beside the API, reading committed
 * leaves through its own read-only connection. It never touches the hook path: a check appends to the
 * ledger and returns; the loop picks the leaf up on its next poll, whatever state the collector is in.
 */
import type { Logger } from 'pino'
import { parseDuration } from '../../core/duration.ts'
import { userHomeOf } from '../paths.ts'
import { openOtlpExport, otlpSettingsFromEnv } from './otlp-setup.ts'

export interface RunningExport {
  stop(): Promise<void>
}

/** Starts the export loop when configured; undefined when export is off. A bad setting throws (the daemon does not start). */
export function startOtlpExport(home: string, env: NodeJS.ProcessEnv, log: Logger): RunningExport | undefined {
  const settings = otlpSettingsFromEnv(env)
  if (!settings) return undefined
  const pollMs = env.SVC_OTLP_INTERVAL ? parseDuration(env.SVC_OTLP_INTERVAL) : 1000
  const opened = openOtlpExport(home, settings, userHomeOf(env))
  const abort = new AbortController()
  log.info({ endpoint: settings.endpoint, cursor: opened.shipper.cursor().nextSeq }, 'OTLP export running')
  const loop = opened.shipper
    .follow(abort.signal, { pollMs, onError: (err) => log.warn({ err: err.message }, 'OTLP export: batch not accepted; will retry (the ledger keeps it)') })
    .catch((err: Error) => log.error({ err: err.message }, 'OTLP export stopped'))
  return {
    async stop() {
      abort.abort()
      await loop
      await opened.close()
    },
  }
}
