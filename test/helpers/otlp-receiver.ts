/**
 * An OTLP/HTTP logs receiver for tests, in place of an OpenTelemetry collector (none can be installed here):
 * `POST /v1/logs` with `Content-Type: application/x-protobuf`, the body decoded with protobufjs from a schema
 * written here from opentelemetry-proto's published field numbers (collector/logs/v1/logs_service.proto,
 * logs/v1/logs.proto, common/v1/common.proto, resource/v1/resource.proto). It keeps every accepted request
 * and writes them as an archive in the collector `file` exporter's form: one OTLP/JSON
 * ExportLogsServiceRequest per line. It can be down (port closed) or answer 503 to drive retries.
 */
import { createServer, type RequestListener, type Server } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import { appendFileSync } from 'node:fs'
import protobuf from 'protobufjs'

const SCHEMA = `
syntax = "proto3";
package otlp;
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
message ExportLogsPartialSuccess { int64 rejected_log_records = 1; string error_message = 2; }
message ResourceLogs { Resource resource = 1; repeated ScopeLogs scope_logs = 2; string schema_url = 3; }
message ScopeLogs { InstrumentationScope scope = 1; repeated LogRecord log_records = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message LogRecord {
  fixed64 time_unix_nano = 1; fixed64 observed_time_unix_nano = 11; int32 severity_number = 2; string severity_text = 3;
  AnyValue body = 5; repeated KeyValue attributes = 6; uint32 dropped_attributes_count = 7; fixed32 flags = 8;
  bytes trace_id = 9; bytes span_id = 10; string event_name = 12;
}
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`
const root = protobuf.parse(SCHEMA, { keepCase: false }).root
const Request = root.lookupType('otlp.ExportLogsServiceRequest')
const Response = root.lookupType('otlp.ExportLogsServiceResponse')

/** A decoded log record, flattened. */
export interface ReceivedRecord {
  readonly resource: Record<string, string | number>
  readonly scope: string
  readonly eventName: string
  readonly severityNumber: number
  readonly timeUnixNano: string
  readonly body: string
  readonly attributes: Record<string, string | number>
}

type Json = Record<string, any>

function flat(kvs: Json[] | undefined): Record<string, string | number> {
  const out: Record<string, string | number> = {}
  for (const kv of kvs ?? []) out[kv.key] = kv.value.stringValue ?? Number(kv.value.intValue ?? kv.value.doubleValue)
  return out
}

export interface OtlpReceiver {
  readonly url: string
  /** Every record of every accepted request, in arrival order. */
  readonly records: ReceivedRecord[]
  /** Requests seen, including refused ones. */
  requests: number
  /** While true, answer 503 (a collector overloaded or restarting). */
  unavailable: boolean
  /** Close the port (connections refused) / reopen it on the same port. */
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

/** Starts a receiver on an ephemeral loopback port; `archive`, when given, gets one OTLP/JSON line per accepted request; `tls` serves HTTPS. */
export async function startOtlpReceiver(archive?: string, port = 0, tls?: { key: Buffer; cert: Buffer }): Promise<OtlpReceiver> {
  let server: Server
  const receiver: OtlpReceiver = {
    url: '',
    records: [],
    requests: 0,
    unavailable: false,
    down: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
    up: () => listen(Number(new URL(receiver.url).port)).then(() => undefined),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const handle = (body: Buffer, type: string | undefined): { status: number; reply?: Buffer } => {
    receiver.requests++
    if (receiver.unavailable) return { status: 503 }
    if (type !== 'application/x-protobuf') return { status: 415 }
    let decoded: Json
    try {
      decoded = Request.toObject(Request.decode(body), { longs: String, bytes: String, defaults: false, oneofs: false })
    } catch {
      return { status: 400 }
    }
    for (const rl of decoded.resourceLogs ?? []) {
      const resource = flat(rl.resource?.attributes)
      for (const sl of rl.scopeLogs ?? []) {
        for (const r of sl.logRecords ?? []) {
          receiver.records.push({
            resource,
            scope: sl.scope?.name ?? '',
            eventName: r.eventName ?? '',
            severityNumber: r.severityNumber ?? 0,
            timeUnixNano: r.timeUnixNano ?? '0',
            body: r.body?.stringValue ?? '',
            attributes: flat(r.attributes),
          })
        }
      }
    }
    if (archive) appendFileSync(archive, `${JSON.stringify(decoded)}\n`)
    return { status: 200, reply: Buffer.from(Response.encode(Response.create({})).finish()) }
  }
  const listen = (p: number) =>
    new Promise<void>((resolve) => {
      const onRequest: RequestListener = (req, res) => {
        const chunks: Buffer[] = []
        req.on('data', (c: Buffer) => chunks.push(c))
        req.on('end', () => {
          if (req.method !== 'POST' || req.url !== '/v1/logs') {
            res.writeHead(404).end()
            return
          }
          const { status, reply } = handle(Buffer.concat(chunks), req.headers['content-type'])
          res.writeHead(status, reply ? { 'content-type': 'application/x-protobuf' } : {}).end(reply)
        })
      }
      server = tls ? (createTlsServer(tls, onRequest) as unknown as Server) : createServer(onRequest)
      server.listen(p, '127.0.0.1', () => {
        const addr = server.address() as { port: number }
        ;(receiver as { url: string }).url = `${tls ? 'https' : 'http'}://127.0.0.1:${addr.port}`
        resolve()
      })
    })
  await listen(port)
  return receiver
}
