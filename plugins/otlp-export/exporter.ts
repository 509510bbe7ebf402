/**
 * The wire: the official OTLP/HTTP protobuf exporter (`@opentelemetry/exporter-logs-otlp-proto`), called one
 * batch at a time through `export(records, callback)` so that each request's acceptance is known. It POSTs an
 * `ExportLogsServiceRequest` to `<endpoint>/v1/logs` with `Content-Type: application/x-protobuf` and retries
 * 429/502/503/504 (honouring Retry-After) and connection errors within `timeoutMillis` (OTLP specification,
 * "OTLP/HTTP Throttling" and "Failures"); anything else, or running out of time, is a refused batch here.
 * TLS for real collectors: a private CA, and a client certificate for mTLS, go to the HTTPS agent.
 */
import { readFileSync } from 'node:fs'
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import type { SendResult } from './shipper.ts'

export interface OtlpEndpointOptions {
  /** Collector base URL, e.g. `https://otel.example.com:4318` (`/v1/logs` is appended unless present). */
  readonly endpoint: string
  /** Extra request headers (e.g. `authorization`). */
  readonly headers?: Readonly<Record<string, string>>
  /** PEM files: a CA bundle to trust, and a client certificate + key for mTLS. */
  readonly caFile?: string
  readonly certFile?: string
  readonly keyFile?: string
  /** Per request, retries included (default 10 s). */
  readonly timeoutMs?: number
  readonly gzip?: boolean
}

/** The signal URL of a collector base URL. */
export function logsUrl(endpoint: string): string {
  const url = new URL(endpoint)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`OTLP endpoint ${endpoint} is not an http(s) URL`)
  return url.pathname.endsWith('/v1/logs') ? url.toString() : `${url.toString().replace(/\/$/, '')}/v1/logs`
}

/** A send function over one OTLPLogExporter; `close` ends its keep-alive connections. */
export function otlpSender(opts: OtlpEndpointOptions): { send: (records: ReadableLogRecord[]) => Promise<SendResult>; close: () => Promise<void> } {
  const tls = {
    ...(opts.caFile ? { ca: readFileSync(opts.caFile) } : {}),
    ...(opts.certFile ? { cert: readFileSync(opts.certFile) } : {}),
    ...(opts.keyFile ? { key: readFileSync(opts.keyFile) } : {}),
  }
  const exporter = new OTLPLogExporter({
    url: logsUrl(opts.endpoint),
    headers: { ...opts.headers },
    timeoutMillis: opts.timeoutMs ?? 10_000,
    // One request at a time is the shipper's own rule; the exporter releases its slot only after the callback.
    concurrencyLimit: 4,
    ...(opts.gzip ? { compression: 'gzip' as never } : {}),
    httpAgentOptions: { keepAlive: true, ...tls },
  })
  return {
    send: (records) =>
      new Promise((resolve) => {
        // ExportResultCode.SUCCESS is 0 (@opentelemetry/core).
        exporter.export(records, (r) => resolve(r.code === 0 ? { ok: true } : { ok: false, error: r.error?.message ?? 'export failed' }))
      }),
    close: () => exporter.shutdown(),
  }
}
