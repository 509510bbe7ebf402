/**
 * Parses big policy files in a worker thread, so reading a 10,000-gate YAML file does not stop the daemon
 * answering (parsing is most of a big file's load). The result is plain data (gates as written, with
 * their locations); compiling stays on the main thread, in slices (steps.ts). The worker starts on first
 * use and exits when idle; errors come back as the EngineError the inline parser would have thrown.
 */
import { isMainThread, parentPort, workerData, type Worker } from 'node:worker_threads'
import { EngineError, ERR } from '../errors.ts'
import { startWorker as startThread } from '../worker-thread.ts'
import { parseGroupPolicy, parsePolicy, type ParsedGroupPolicy, type ParsedPolicy, type RawGate } from './parse.ts'

export type ParseKind = 'policy' | 'group'
type Parsed<K extends ParseKind> = K extends 'policy' ? ParsedPolicy : ParsedGroupPolicy

interface Job {
  readonly id: number
  readonly kind: ParseKind
  readonly text: string
  readonly file: string
}
type Reply = { id: number; parsed: ParsedPolicy | ParsedGroupPolicy } | { id: number; error: { code: string; message: string; loc?: EngineError['loc'] } }

/** Parses inline (what every load at boot, and every small file, uses). */
export function parseInline<K extends ParseKind>(kind: K, text: string, file: string): Parsed<K> {
  return (kind === 'policy' ? parsePolicy(text, file) : parseGroupPolicy(text, file)) as Parsed<K>
}

const PARSER = 'svc-policy-parser' // the parser thread's workerData: other threads load this module too (the OTLP export's took its `stop` for a job)
let worker: Worker | undefined
let nextId = 1
const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>()

/** Parses in the shared worker thread. */
export function parseInWorker<K extends ParseKind>(kind: K, text: string, file: string): Promise<Parsed<K>> {
  const w = (worker ??= startWorker())
  const id = nextId++
  w.ref()
  return new Promise<Parsed<K>>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
    w.postMessage({ id, kind, text, file } satisfies Job)
  })
}

function startWorker(): Worker {
  const w = startThread(new URL(import.meta.url), { workerData: PARSER })
  w.on('message', (reply: Reply) => {
    const job = pending.get(reply.id)
    pending.delete(reply.id)
    if (pending.size === 0) w.unref() // an idle worker never keeps the process alive
    if (!job) return
    if ('parsed' in reply) return job.resolve(reply.parsed)
    const kind = Object.values(ERR).find((k) => k.code === reply.error.code) ?? ERR.POLICY_INVALID
    job.reject(new EngineError(kind, reply.error.message, { loc: reply.error.loc }))
  })
  const fail = (err: unknown) => {
    worker = undefined
    for (const job of pending.values()) job.reject(err instanceof Error ? err : new Error(`policy parser worker exited (${String(err)})`))
    pending.clear()
  }
  w.on('error', fail)
  w.on('exit', (code) => fail(code))
  w.unref()
  return w
}

if (!isMainThread && parentPort && workerData === PARSER) {
  const port = parentPort
  port.on('message', (job: Job) => {
    try {
      port.postMessage({ id: job.id, parsed: cloneable(parseInline(job.kind, job.text, job.file)) } satisfies Reply)
    } catch (cause) {
      const err = cause instanceof EngineError ? cause : new EngineError(ERR.POLICY_INVALID, (cause as Error).message, { loc: { file: job.file } })
      port.postMessage({ id: job.id, error: { code: err.code, message: err.message, loc: err.loc } } satisfies Reply)
    }
  })
}

// `locate` (a value's exact place inside a gate) closes over the YAML document and cannot cross threads: a
// big file's load errors inside a gate then name the gate's own line, which RawGate allows.
function cloneable(parsed: ParsedPolicy | ParsedGroupPolicy): ParsedPolicy | ParsedGroupPolicy {
  const strip = (gates: readonly RawGate[]): RawGate[] => gates.map(({ value, loc }) => ({ value, loc }))
  if ('gates' in parsed) return { ...parsed, gates: strip(parsed.gates) }
  const map = (m: ReadonlyMap<string, readonly RawGate[]>) => new Map([...m].map(([k, v]) => [k, strip(v)]))
  return { ...parsed, groups: map(parsed.groups), users: map(parsed.users) }
}
