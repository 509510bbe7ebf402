/**
 * The daemon's export loop on a thread of its own: reading leaves, mapping them to records, redacting and
 * protobuf-encoding never run on the event loop that answers hooks. The parent posts `stop`, and the
 * witnesses' cosignatures whenever they change; the thread posts `{ warn }` for each refused batch and
 * `{ stopped }` when it has closed its connection.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { CosignatureView } from '../../core/index.ts'
import type { ExportJob } from './daemon.ts'
import { openOtlpExport } from './setup.ts'

const job = workerData as ExportJob
const abort = new AbortController()
let cosignatures: readonly CosignatureView[] = job.cosignatures
parentPort!.on('message', (m: 'stop' | { cosignatures: CosignatureView[] }) => {
  if (m === 'stop') abort.abort()
  else cosignatures = m.cosignatures
})
const opened = openOtlpExport(job.home, job.settings, { userHome: job.userHome, version: job.version, cosignatures: () => cosignatures })
parentPort!.postMessage({ started: opened.shipper.cursor().nextSeq })
try {
  await opened.shipper.follow(abort.signal, { pollMs: job.pollMs, onError: (err) => parentPort!.postMessage({ warn: err.message }) })
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message })
} finally {
  await opened.close()
  parentPort!.postMessage({ stopped: true })
}
