/**
 * Parsed policy files kept under `$SVC_HOME/cache/policy`, one entry per file path: a short-lived `svc explain`
 * or a restarted daemon skips YAML parsing and schema validation (most of building an engine) for a file whose
 * bytes and path, and whose validating schemas and parser, are those of an earlier successful load.
 *
 * Only a file that parsed AND compiled is stored; on a hit the gate compiler still runs (only the schema checks
 * it already passed are skipped). The cache lives in `$SVC_HOME`, which agents can neither read nor write (the
 * self-protection gates), like the V8 compile cache beside it. A damaged or foreign entry is a miss, never an error.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256 } from '../hash.ts'
import type { ParsedGroupPolicy, ParsedPolicy, RawGate } from './parse.ts'
import type { ParseKind } from './parse-worker.ts'

type Parsed = ParsedPolicy | ParsedGroupPolicy

export interface ParseCache {
  /** The parsed form of `path` when `contentHash` and the validating code match a stored entry. */
  get(kind: ParseKind, path: string, contentHash: string): Parsed | undefined
  /** Stores a parsed form that has just compiled; best effort (a full disk only costs the next start). */
  put(kind: ParseKind, path: string, contentHash: string, parsed: Parsed): void
}

interface Entry {
  readonly key: string
  readonly mode: Parsed['mode']
  readonly gates?: readonly StoredGate[]
  readonly groups?: readonly [string, readonly StoredGate[]][]
  readonly users?: readonly [string, readonly StoredGate[]][]
}
type StoredGate = Pick<RawGate, 'value' | 'loc'>

/**
 * Entries this process has stored, by kind and key (the key covers the validators, the path and the bytes): the
 * engines a process builds over fresh homes (a test run builds hundreds; a daemon rebuilds one on reload) parse
 * a file once between them. Kept as JSON text, so every engine gets its own objects.
 */
const parsedInProcess = new Map<string, string>()
const IN_PROCESS_ENTRIES = 256
let inProcessHits = 0

/** How many loads this process served from another engine's parse (tests, diagnostics). */
export function parseCacheInProcessHits(): number {
  return inProcessHits
}

/**
 * Opens the cache in `dir`. `validator` identifies everything that validated a stored entry (the policy
 * schemas, every gate and evaluator kind's schema, the parser): when it changes, every entry is a miss.
 */
export function openParseCache(dir: string, validator: string): ParseCache {
  const fileOf = (kind: ParseKind, path: string) => join(dir, `${sha256(`${kind}\0${path}`)}.json`)
  const keyOf = (path: string, contentHash: string) => sha256(`${validator}\0${path}\0${contentHash}`)
  const store = (file: string, text: string): void => {
    const tmp = `${file}.${process.pid}.tmp`
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      writeFileSync(tmp, text, { mode: 0o600 })
      renameSync(tmp, file)
    } catch {
      // Best effort: the next start parses the file again.
    }
  }
  return {
    get(kind, path, contentHash) {
      const key = keyOf(path, contentHash)
      const file = fileOf(kind, path)
      let entry: Entry | undefined
      try {
        entry = JSON.parse(readFileSync(file, 'utf8')) as Entry
      } catch {
        entry = undefined
      }
      if (entry?.key !== key) {
        // Another engine of this process parsed the same bytes with the same validators: this home gets the
        // entry too, as if it had parsed them itself.
        const text = parsedInProcess.get(`${kind}\0${key}`)
        if (text === undefined) return undefined
        entry = JSON.parse(text) as Entry
        inProcessHits++
        store(file, text)
      }
      const checked = (gates: readonly StoredGate[]): RawGate[] => gates.map((gate) => ({ ...gate, checked: true }))
      if (kind === 'policy') return entry.gates ? { file: path, mode: entry.mode, gates: checked(entry.gates) } : undefined
      if (!entry.groups || !entry.users) return undefined
      const map = (entries: Entry['groups'] & {}) => new Map(entries.map(([name, gates]) => [name, checked(gates)]))
      return { file: path, mode: entry.mode, groups: map(entry.groups), users: map(entry.users) }
    },
    put(kind, path, contentHash, parsed) {
      const strip = (gates: readonly RawGate[]): StoredGate[] => gates.map(({ value, loc }) => ({ value, loc }))
      const entry: Entry =
        'gates' in parsed
          ? { key: keyOf(path, contentHash), mode: parsed.mode, gates: strip(parsed.gates) }
          : {
              key: keyOf(path, contentHash),
              mode: parsed.mode,
              groups: [...parsed.groups].map(([name, gates]) => [name, strip(gates)]),
              users: [...parsed.users].map(([name, gates]) => [name, strip(gates)]),
            }
      const text = JSON.stringify(entry)
      if (parsedInProcess.size >= IN_PROCESS_ENTRIES) parsedInProcess.clear()
      parsedInProcess.set(`${kind}\0${entry.key}`, text)
      store(fileOf(kind, path), text)
    },
  }
}
