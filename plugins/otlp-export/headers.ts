/**
 * Collector headers as `SVC_OTLP_HEADERS` and `svc export --header` write them. Apart from exporter.ts so the
 * daemon can read its settings without loading OpenTelemetry (only a configured export needs it).
 */
/** Parses `k=v,k2=v2` (the OTEL_EXPORTER_OTLP_HEADERS form) into headers; throws naming a bad pair. */
export function parseHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new Error(`header "${pair}" is not key=value`)
    out[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim())
  }
  return out
}
