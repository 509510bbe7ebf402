/**
 * Reads an OTLP archive: one file, or every file of a directory (sorted by name), each holding one OTLP/JSON
 * `ExportLogsServiceRequest` per line — what the collector's `file` exporter writes, and what `awss3` with
 * `marshaler: otlp_json` stores per object (OTLP specification, "JSON Protobuf Encoding": lowerCamelCase
 * field names, 64-bit integers as decimal strings). svc records are grouped by the resource attribute
 * `svc.ledger.origin`; other records in the same archive are ignored.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { EVENT } from '../../plugins/otlp-export/index.ts'

/** One origin's records in arrival order. */
export interface ShippedLedger {
  readonly origin: string
  readonly hosts: Set<string>
  /** Every leaf record as shipped (duplicates kept, so a re-sent leaf can be compared with the first). */
  readonly leaves: { seq: number; body: string; sig: Buffer | null }[]
  /** Every checkpoint record as shipped, in arrival order. */
  readonly checkpoints: { treeSize: number; root: Buffer; note: string; signerKid: string }[]
  /** Witness cosignature records: the cosigned note and the witness's policy name. */
  readonly cosignatures: { witness: string; treeSize: number; root: Buffer; note: string }[]
}

// The OTLP/JSON fields this reader reads. A line is not validated as a whole (it is whatever the shipper wrote), so the
// values are `unknown` and checked where they are read.
interface OtlpAttribute {
  key: string
  value?: { stringValue?: unknown; intValue?: unknown }
}
interface OtlpLogRecord {
  eventName?: unknown
  body?: { stringValue?: unknown }
  attributes?: OtlpAttribute[]
}
interface OtlpLogsDocument {
  resourceLogs?: { resource?: { attributes?: OtlpAttribute[] }; scopeLogs?: { logRecords?: OtlpLogRecord[] }[] }[]
}

function attrs(kvs: OtlpAttribute[] | undefined): Map<string, string | number> {
  const out = new Map<string, string | number>()
  for (const kv of kvs ?? []) {
    const v: NonNullable<OtlpAttribute['value']> = kv?.value ?? {}
    if (typeof v.stringValue === 'string') out.set(kv.key, v.stringValue)
    else if (v.intValue !== undefined) out.set(kv.key, Number(v.intValue))
  }
  return out
}

function files(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path)
    .sort()
    .map((n) => join(path, n))
    .filter((p) => statSync(p).isFile())
}

/** Parses the archive; throws naming the file and line of anything that is not OTLP/JSON. */
export function readArchive(path: string): Map<string, ShippedLedger> {
  const ledgers = new Map<string, ShippedLedger>()
  for (const file of files(path)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() === '') return
        let doc: OtlpLogsDocument
        try {
          doc = JSON.parse(line)
        } catch {
          throw new Error(`${file}:${i + 1} is not an OTLP/JSON line`)
        }
        for (const rl of doc.resourceLogs ?? []) {
          const resource = attrs(rl.resource?.attributes)
          const origin = resource.get('svc.ledger.origin')
          if (typeof origin !== 'string') continue
          let ledger = ledgers.get(origin)
          if (!ledger) ledgers.set(origin, (ledger = { origin, hosts: new Set(), leaves: [], checkpoints: [], cosignatures: [] }))
          const host = resource.get('host.name')
          if (typeof host === 'string') ledger.hosts.add(host)
          for (const sl of rl.scopeLogs ?? []) for (const r of sl.logRecords ?? []) addRecord(ledger, r, `${file}:${i + 1}`)
        }
      })
  }
  return ledgers
}

function addRecord(ledger: ShippedLedger, r: OtlpLogRecord, where: string): void {
  const a = attrs(r.attributes)
  const body = r.body?.stringValue
  if (typeof body !== 'string') throw new Error(`${where}: an svc record without a string body`)
  if (r.eventName === EVENT.cosignature) {
    const size = a.get('svc.ledger.tree_size')
    const root = a.get('svc.ledger.root')
    const witness = a.get('svc.witness')
    if (typeof size !== 'number' || typeof root !== 'string' || typeof witness !== 'string') throw new Error(`${where}: a cosignature record without witness/tree_size/root`)
    ledger.cosignatures.push({ witness, treeSize: size, root: Buffer.from(root, 'base64'), note: body })
    return
  }
  if (r.eventName === EVENT.checkpoint) {
    const size = a.get('svc.ledger.tree_size')
    const root = a.get('svc.ledger.root')
    if (typeof size !== 'number' || typeof root !== 'string') throw new Error(`${where}: a checkpoint record without tree_size/root`)
    ledger.checkpoints.push({ treeSize: size, root: Buffer.from(root, 'base64'), note: body, signerKid: String(a.get('svc.ledger.signer_kid') ?? '') })
    return
  }
  const seq = a.get('svc.ledger.seq')
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw new Error(`${where}: a leaf record without svc.ledger.seq`)
  const sig = a.get('svc.ledger.leaf_sig')
  ledger.leaves.push({ seq, body, sig: typeof sig === 'string' ? Buffer.from(sig, 'base64') : null })
}
