/**
 * The daemon's continuous export (`SVC_OTLP_ENDPOINT` set): a follow loop on a worker thread (worker.ts)
 * with its own read-only connection. It never touches the hook path: a check appends to the ledger and
 * returns; the thread picks the leaf up on its next poll, whatever state the collector is in. The witnesses'
 * cosignatures come from the ledger's `cosignatures` view (set by the witness plugin when it runs): this
 * thread posts them to the export thread whenever they change.
 */
import { homedir } from 'node:os'
import { parseDuration, startWorker } from '../../core/index.ts'
import type { ServiceContext } from '../../daemon/index.ts'
import { otlpSettingsFromEnv, type OtlpSettings } from './settings.ts'
import type { CosignatureView } from '../../core/index.ts'

export interface RunningExport {
  stop(): Promise<void>
}

/** What the export thread starts with (worker.ts). */
export interface ExportJob {
  readonly home: string
  readonly settings: OtlpSettings
  readonly userHome: string
  readonly version: string
  readonly pollMs: number
  readonly cosignatures: readonly CosignatureView[]
}

/** Starts the export thread when configured; undefined when export is off. A bad setting throws (the daemon does not start). */
export function startOtlpExport({ engine, env, log, version }: ServiceContext): RunningExport | undefined {
  const settings = otlpSettingsFromEnv(env)
  if (!settings) return undefined
  const pollMs = env.SVC_OTLP_INTERVAL ? parseDuration(env.SVC_OTLP_INTERVAL) : 1000
  const ledger = engine.ledger
  let posted = JSON.stringify(ledger.cosignatures())
  const job: ExportJob = { home: engine.home, settings, userHome: env.HOME || homedir(), version, pollMs, cosignatures: JSON.parse(posted) }
  const worker = startWorker(new URL('./worker.ts', import.meta.url), { workerData: job })
  const cosigned = setInterval(() => {
    const now = JSON.stringify(ledger.cosignatures())
    if (now === posted) return
    posted = now
    worker.postMessage({ cosignatures: JSON.parse(now) })
  }, pollMs)
  cosigned.unref()
  const stopped = new Promise<void>((resolve) => {
    worker.on('message', (m: { started?: number; warn?: string; error?: string; stopped?: boolean }) => {
      if (m.started !== undefined) log.info({ endpoint: settings.endpoint, cursor: m.started }, 'OTLP export running')
      if (m.warn) log.warn({ err: m.warn }, 'OTLP export: batch not accepted; will retry (the ledger keeps it)')
      if (m.error) log.error({ err: m.error }, 'OTLP export stopped')
      // The thread has closed its connection; its message port alone would keep it alive (15 s shutdowns).
      if (m.stopped) void worker.terminate()
    })
    worker.once('exit', () => resolve())
    worker.on('error', (err) => log.error({ err: err.message }, 'OTLP export thread failed'))
  })
  return {
    async stop() {
      clearInterval(cosigned)
      worker.postMessage('stop')
      const timer = setTimeout(() => void worker.terminate(), 15_000)
      await stopped
      clearTimeout(timer)
    },
  }
}
