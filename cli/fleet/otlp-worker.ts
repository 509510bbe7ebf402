/**
 * The daemon's export loop on a thread of its own: reading leaves, mapping them to records, redacting and
 * protobuf-encoding never run on the event loop that answers hooks. The parent posts `stop`; the thread
 * posts `{ warn }` for each refused batch and `{ stopped }` when it has closed its connection.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openOtlpExport } from './otlp-setup.ts'
import type { OtlpSettings } from './otlp-settings.ts'

interface ExportJob {
  readonly home: string
  readonly settings: OtlpSettings
  readonly userHome: string
  readonly pollMs: number
}

const job = workerData as ExportJob
const abort = new AbortController()
parentPort!.on('message', (m: unknown) => {
  if (m === 'stop') abort.abort()
})
const opened = openOtlpExport(job.home, job.settings, job.userHome)
parentPort!.postMessage({ started: opened.shipper.cursor().nextSeq })
try {
  await opened.shipper.follow(abort.signal, { pollMs: job.pollMs, onError: (err) => parentPort!.postMessage({ warn: err.message }) })
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message })
} finally {
  await opened.close()
  parentPort!.postMessage({ stopped: true })
}
