/**
 * One ledger leaf (or signed checkpoint) as one OTLP log record. The body is the exact leaf bytes (JCS), so a
 * central checker can recompute SHA-256(0x00 ‖ leaf) and rebuild the machine's RFC 6962 tree; the attributes
 * carry what people filter on, each string passed through the shared redaction first.
 * Field meanings: opentelemetry-proto `opentelemetry/proto/logs/v1/logs.proto` (LogRecord: time_unix_nano=1,
 * severity_number=2, severity_text=3, body=5, attributes=6, event_name=12 — "presence ... identifies this
 * record as an event"); severity numbers from the logs data model (INFO 9, WARN 13, ERROR 17).
 */
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import type { Resource } from '@opentelemetry/resources'

/** Event names of svc records (the record's `event_name`). */
export const EVENT = { leaf: 'svc.decision', sessionCert: 'svc.session_cert', checkpoint: 'svc.checkpoint', cosignature: 'svc.witness_cosignature' } as const

/** Instrumentation scope of every svc record. */
export const SCOPE = { name: 'svc.ledger', version: '1' }

/** A committed leaf as the exporter reads it. */
export interface ExportLeaf {
  readonly seq: number
  /** The exact stored JCS bytes (UTF-8). */
  readonly body: string
  readonly leafHash: Buffer
  readonly sig: Buffer | null
}

/** A signed checkpoint as the exporter reads it. */
export interface ExportCheckpoint {
  readonly treeSize: number
  readonly root: Buffer
  /** The C2SP signed note (with any witness cosignature lines). */
  readonly note: string
  readonly signerKid: string
}

/** Makes a string safe to ship (the deterministic redaction every svc surface uses). */
export type Redact = (text: string) => string

export interface RecordContext {
  readonly resource: Resource
  readonly redact: Redact
}

interface LeafFields {
  type?: string
  ts_ms?: number
  session_id?: string
  source?: string
  tool?: string
  verdict?: string
  rule_id?: string
  tool_use_id?: string
  policy_hash?: string
  mode?: string
  certificate?: unknown
}

function severityOf(verdict: string | undefined): { number: number; text: string } {
  if (verdict === 'allow') return { number: 9, text: 'INFO' }
  if (verdict === 'deny' || verdict === 'monitor_alert') return { number: 13, text: 'WARN' }
  if (verdict === 'tool_errored') return { number: 17, text: 'ERROR' }
  return { number: 9, text: 'INFO' }
}

function hrTime(ms: number): [number, number] {
  const whole = Math.floor(ms)
  return [Math.floor(whole / 1000), (whole % 1000) * 1_000_000]
}

/** Only non-empty strings become attributes (an empty rule id says nothing). */
function put(attrs: Record<string, string | number>, key: string, value: unknown, redact: Redact): void {
  if (typeof value === 'string' && value !== '') attrs[key] = redact(value)
}

/** The log record of one leaf: body = leaf bytes; `svc.ledger.*` lets a verifier place and check it. */
export function leafRecord(leaf: ExportLeaf, ctx: RecordContext): ReadableLogRecord {
  const f = JSON.parse(leaf.body) as LeafFields
  const attrs: Record<string, string | number> = {
    'svc.ledger.seq': leaf.seq,
    'svc.ledger.leaf_hash': leaf.leafHash.toString('hex'),
  }
  if (leaf.sig) attrs['svc.ledger.leaf_sig'] = leaf.sig.toString('base64')
  put(attrs, 'svc.leaf.type', f.type, ctx.redact)
  put(attrs, 'svc.decision', f.verdict, ctx.redact)
  put(attrs, 'security_rule.name', f.rule_id, ctx.redact)
  put(attrs, 'svc.harness', f.source, ctx.redact)
  put(attrs, 'gen_ai.tool.name', f.tool, ctx.redact)
  put(attrs, 'gen_ai.tool.call.id', f.tool_use_id, ctx.redact)
  put(attrs, 'svc.session.id', f.session_id, ctx.redact)
  put(attrs, 'svc.policy.hash', f.policy_hash, ctx.redact)
  put(attrs, 'svc.mode', f.mode, ctx.redact)
  const at = hrTime(f.ts_ms ?? Date.now())
  const severity = severityOf(f.verdict)
  return {
    hrTime: at,
    hrTimeObserved: at,
    severityNumber: severity.number,
    severityText: severity.text,
    body: leaf.body,
    eventName: f.certificate === undefined ? EVENT.leaf : EVENT.sessionCert,
    resource: ctx.resource,
    instrumentationScope: SCOPE,
    attributes: attrs,
    droppedAttributesCount: 0,
  }
}

/** The log record of one signed checkpoint: body = the signed note. */
export function checkpointRecord(cp: ExportCheckpoint, createdMs: number, ctx: RecordContext): ReadableLogRecord {
  const at = hrTime(createdMs)
  return {
    hrTime: at,
    hrTimeObserved: at,
    severityNumber: 9,
    severityText: 'INFO',
    body: cp.note,
    eventName: EVENT.checkpoint,
    resource: ctx.resource,
    instrumentationScope: SCOPE,
    attributes: {
      'svc.ledger.tree_size': cp.treeSize,
      'svc.ledger.root': cp.root.toString('base64'),
      'svc.ledger.signer_kid': cp.signerKid,
    },
    droppedAttributesCount: 0,
  }
}

/** A witness cosignature of one of this ledger's checkpoints (c2sp.org/tlog-cosignature). */
export interface ExportCosignature {
  /** The witness's name in the witness policy. */
  readonly witness: string
  readonly treeSize: number
  readonly root: Buffer
  /** The cosigned note: checkpoint body, blank line, the witness's signature line. */
  readonly note: string
  readonly timestamp: number
}

/** The log record of a witness cosignature: body = the cosigned note. */
export function cosignatureRecord(c: ExportCosignature, ctx: RecordContext): ReadableLogRecord {
  const at = hrTime(c.timestamp * 1000)
  return {
    hrTime: at,
    hrTimeObserved: at,
    severityNumber: 9,
    severityText: 'INFO',
    body: c.note,
    eventName: EVENT.cosignature,
    resource: ctx.resource,
    instrumentationScope: SCOPE,
    attributes: { 'svc.witness': c.witness, 'svc.ledger.tree_size': c.treeSize, 'svc.ledger.root': c.root.toString('base64') },
    droppedAttributesCount: 0,
  }
}
