/**
 * The daemon's continuous export (`SVC_OTLP_ENDPOINT` set): a follow loop on a worker thread (otlp-worker.ts)
 * with its own read-only connection. It never touches the hook path: a check appends to the ledger and
 * returns; the thread picks the leaf up on its next poll, whatever state the collector is in.
 */
import { startWorker } from '../../core/worker-thread.ts'
import type { Logger } from 'pino'
import { parseDuration } from '../../core/duration.ts'
import { userHomeOf } from '../paths.ts'
import { otlpSettingsFromEnv } from './otlp-settings.ts'

export interface RunningExport {
  stop(): Promise<void>
}

/** Starts the export thread when configured; undefined when export is off. A bad setting throws (the daemon does not start). */
export function startOtlpExport(home: string, env: NodeJS.ProcessEnv, log: Logger): RunningExport | undefined {
  const settings = otlpSettingsFromEnv(env)
  if (!settings) return undefined
  const pollMs = env.SVC_OTLP_INTERVAL ? parseDuration(env.SVC_OTLP_INTERVAL) : 1000
  const worker = startWorker(new URL('./otlp-worker.ts', import.meta.url), { workerData: { home, settings, userHome: userHomeOf(env), pollMs } })
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
      worker.postMessage('stop')
      const timer = setTimeout(() => void worker.terminate(), 15_000)
      await stopped
      clearTimeout(timer)
    },
  }
}
