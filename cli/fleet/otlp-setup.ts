/**
 * Builds an OTLP shipper for one `$SVC_HOME` from settings (CLI flags or the daemon's environment):
 * the collector endpoint, headers, TLS files, and the resource every record carries. Attributes pass through
 * the one redaction every svc surface uses (redaction/index.ts).
 */
import { hostname } from 'node:os'
import { join } from 'node:path'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { otlpSender } from '../../plugins/otlp-export/exporter.ts'
import { cursorPath } from '../../plugins/otlp-export/cursor.ts'
import { OtlpShipper } from '../../plugins/otlp-export/shipper.ts'
import { redactText } from '../../redaction/index.ts'
import { VERSION } from '../paths.ts'
import { ledgerExportSource } from './ledger-source.ts'
import type { OtlpSettings } from './otlp-settings.ts'

export interface OtlpExport {
  readonly shipper: OtlpShipper
  close(): Promise<void>
}

/** Opens the ledger read-only and the exporter (redacting the user's home as `~`); `close` releases both. */
export function openOtlpExport(home: string, settings: OtlpSettings, userHome: string, dbPath = join(home, 'ledger.db')): OtlpExport {
  const source = ledgerExportSource(dbPath)
  try {
    const sender = otlpSender(settings)
    const resource = resourceFromAttributes({
      'service.name': 'svc',
      'service.version': VERSION,
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
