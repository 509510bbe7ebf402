/**
 * The daemon's OTLP export settings from its environment. Apart from setup.ts, which loads OpenTelemetry:
 * a daemon without `SVC_OTLP_ENDPOINT` never loads it (about 10 MiB of heap), and one with it loads it on the
 * export thread only.
 */
import type { OtlpEndpointOptions } from './exporter.ts'
import { parseHeaders } from './headers.ts'

export interface OtlpSettings extends OtlpEndpointOptions {
  readonly batchSize?: number
}

/** Daemon settings from the environment; undefined when `SVC_OTLP_ENDPOINT` is unset (export off). */
export function otlpSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): OtlpSettings | undefined {
  const endpoint = env.SVC_OTLP_ENDPOINT
  if (endpoint === undefined || endpoint === '') return undefined
  const timeout = env.SVC_OTLP_TIMEOUT_MS === undefined ? undefined : Number(env.SVC_OTLP_TIMEOUT_MS)
  if (timeout !== undefined && !(Number.isSafeInteger(timeout) && timeout > 0))
    throw new Error(`SVC_OTLP_TIMEOUT_MS=${env.SVC_OTLP_TIMEOUT_MS}: not a positive whole number of milliseconds`)
  return {
    endpoint,
    headers: env.SVC_OTLP_HEADERS ? parseHeaders(env.SVC_OTLP_HEADERS) : undefined,
    caFile: env.SVC_OTLP_CA || undefined,
    certFile: env.SVC_OTLP_CERT || undefined,
    keyFile: env.SVC_OTLP_KEY || undefined,
    timeoutMs: timeout,
  }
}
