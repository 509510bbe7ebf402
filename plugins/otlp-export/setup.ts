/**
 * Builds an OTLP shipper for one `$SVC_HOME` from settings (CLI flags or the daemon's environment):
 * the collector endpoint, headers, TLS files, and the resource every record carries. Attributes pass through
 * the one redaction every svc surface uses (redaction/index.ts). This module loads OpenTelemetry: the plugin's
 * face reaches it only through `loadOtlpExport()`, and the daemon only on its export thread (worker.ts).
 */
import { hostname } from 'node:os'
import { join } from 'node:path'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { redactText } from '../../redaction/index.ts'
import { otlpSender } from './exporter.ts'
import { cursorPath } from './cursor.ts'
import { OtlpShipper } from './shipper.ts'
import { ledgerExportSource, type CosignatureReader } from './source.ts'
import type { OtlpSettings } from './settings.ts'

export { ExportRefused } from './shipper.ts'

export interface OtlpExport {
  readonly shipper: OtlpShipper
  close(): Promise<void>
}

export interface OtlpExportOptions {
  /** The user's home, redacted as `~` in every attribute. */
  readonly userHome: string
  /** svc's version, the resource's `service.version`. */
  readonly version: string
  /** The ledger database (default `<home>/ledger.db`). */
  readonly dbPath?: string
  /** The witnesses' newest cosignatures, shipped after the checkpoints they cover (default: none). */
  readonly cosignatures?: CosignatureReader
}

/** Opens the ledger read-only and the exporter; `close` releases both. */
export function openOtlpExport(home: string, settings: OtlpSettings, opts: OtlpExportOptions): OtlpExport {
  const { userHome } = opts
  const source = ledgerExportSource(opts.dbPath ?? join(home, 'ledger.db'), opts.cosignatures)
  try {
    const sender = otlpSender(settings)
    const resource = resourceFromAttributes({
      'service.name': 'svc',
      'service.version': opts.version,
      'host.name': hostname(),
      'svc.ledger.origin': source.origin,
    })
    const shipper = new OtlpShipper({
      source,
      send: sender.send,
      endpoint: settings.endpoint,
      cursorFile: cursorPath(home, settings.endpoint),
      context: { resource, redact: memoised((text) => redactText(text, userHome).text) },
      batchSize: settings.batchSize,
    })
    return {
      shipper,
      async close() {
        await sender.close()
        source.close()
      },
    }
  } catch (err) {
    source.close()
    throw err
  }
}

/** Rule ids, tools, harnesses and sessions repeat across leaves: redact each distinct string once (bounded). */
function memoised(redact: (text: string) => string): (text: string) => string {
  const seen = new Map<string, string>()
  return (text) => {
    let out = seen.get(text)
    if (out === undefined) {
      out = redact(text)
      if (seen.size >= 10_000) seen.clear()
      seen.set(text, out)
    }
    return out
  }
}
