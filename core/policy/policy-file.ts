/**
 * One policy file as the store tracks it: its last good compiled form, its current error (if any),
 * and a stat stamp so unchanged files are never re-read.
 */
import { statSync } from 'node:fs'
import { EngineError, ERR } from '../errors.ts'
import { sha256 } from '../hash.ts'
import { readRegularFile } from '../regular-file.ts'
import type { Mode, SourceLoc } from '../types.ts'
import type { GateCompiler } from './compile.ts'
import type { CompiledGate } from './compiled.ts'
import type { RawGate } from './parse.ts'
import type { ParseCache } from './parse-cache.ts'
import { parseInline, parseInWorker, type ParseKind } from './parse-worker.ts'
import { drain, runJob, type Job, type Steps } from './steps.ts'

/** Files at least this large are parsed in the worker thread when loaded in the background. */
const WORKER_PARSE_BYTES = 64 * 1024

function parseJob<K extends ParseKind>(kind: K, text: string, path: string): Job<ReturnType<typeof parseInline<K>>> {
  const run = () => parseInline(kind, text, path)
  return text.length >= WORKER_PARSE_BYTES ? { run, runAsync: () => parseInWorker(kind, text, path) } : { run }
}
import type { PolicySource } from './sources.ts'

export interface LoadedPolicy {
  readonly mode: Mode
  readonly contentHash: string
  /** Regular files: every gate. Group file: empty (see `groups`/`users`). */
  readonly gates: readonly CompiledGate[]
  readonly groups: ReadonlyMap<string, readonly CompiledGate[]>
  readonly users: ReadonlyMap<string, readonly CompiledGate[]>
  readonly loadedAt: number
}

export interface FileProblem {
  readonly code: string
  readonly message: string
  readonly loc?: SourceLoc
  readonly at: number
}

/** One tracked policy file: reloads when its stat stamp changes and keeps its last good version on error. */
export class PolicyFile {
  readonly src: PolicySource
  good?: LoadedPolicy
  problem?: FileProblem
  #stamp = ''
  readonly #cache?: ParseCache

  /** `cache`: where parsed forms are kept between processes (never for the repo layer: agents write those files). */
  constructor(src: PolicySource, cache?: ParseCache) {
    this.src = src
    if (src.layer !== 'repo') this.#cache = cache
  }

  get exists(): boolean {
    return this.#stamp !== 'missing' && this.#stamp !== ''
  }

  /**
   * Re-reads the file if its stat changed. On a bad file the last good version stays in force and the
   * problem is recorded. Returns true when what is in force changed.
   */
  refresh(compiler: GateCompiler, now: number): boolean {
    return drain(this.refreshSteps(compiler, now))
  }

  /** refresh as steps (see steps.ts): the new version replaces the old only once it has fully compiled. */
  *refreshSteps(compiler: GateCompiler, now: number): Steps<boolean> {
    const stamp = statStamp(this.src.path)
    if (stamp === this.#stamp) return false
    this.#stamp = stamp
    if (stamp === 'missing') {
      const had = this.good !== undefined
      this.good = undefined
      this.problem = undefined
      return had
    }
    try {
      const text = readRegularFile(this.src.path)
      const contentHash = sha256(text)
      if (this.good?.contentHash === contentHash) {
        this.problem = undefined
        return false
      }
      this.good = yield* this.#compile(text, contentHash, compiler, now)
      this.problem = undefined
      return true
    } catch (cause) {
      const err = cause instanceof EngineError ? cause : new EngineError(ERR.POLICY_INVALID, (cause as Error).message, { cause, loc: { file: this.src.path } })
      this.problem = { code: err.code, message: err.message, loc: err.loc ?? { file: this.src.path }, at: now }
      return false
    }
  }

  *#compile(text: string, contentHash: string, compiler: GateCompiler, now: number): Steps<LoadedPolicy> {
    const { layer, source, path } = this.src
    if (this.src.kind === 'group') {
      const [parsed, cached] = yield* this.#parse('group', text, contentHash)
      const compileMap = function* (entries: ReadonlyMap<string, readonly RawGate[]>, prefix: string): Steps<Map<string, CompiledGate[]>> {
        const out = new Map<string, CompiledGate[]>()
        for (const [name, gates] of entries) out.set(name, yield* compiler.compileSteps(gates, { layer, source: `${prefix}${name}`, policyMode: parsed.mode }))
        return out
      }
      // A bundle's group file names its gates `bundle:group:<name>` so the view says where they came from.
      const prefix = source === 'group' ? '' : 'bundle:'
      const loaded = {
        mode: parsed.mode,
        contentHash,
        gates: [],
        groups: yield* compileMap(parsed.groups, `${prefix}group:`),
        users: yield* compileMap(parsed.users, `${prefix}user:`),
        loadedAt: now,
      }
      if (!cached) this.#cache?.put('group', path, contentHash, parsed)
      return loaded
    }
    const [parsed, cached] = yield* this.#parse('policy', text, contentHash)
    const gates = yield* compiler.compileSteps(parsed.gates, { layer, source, policyMode: parsed.mode, ...(this.src.severity ? { severity: this.src.severity } : {}) })
    if (!cached) this.#cache?.put('policy', path, contentHash, parsed)
    return { mode: parsed.mode, contentHash, gates, groups: new Map(), users: new Map(), loadedAt: now }
  }

  /** The file's parsed form, and whether it came from the parse cache (this exact file passed before). */
  *#parse<K extends ParseKind>(kind: K, text: string, contentHash: string): Steps<[ReturnType<typeof parseInline<K>>, boolean]> {
    const cached = this.#cache?.get(kind, this.src.path, contentHash) as ReturnType<typeof parseInline<K>> | undefined
    if (cached) return [cached, true]
    return [yield* runJob(parseJob(kind, text, this.src.path)), false]
  }
}

function statStamp(path: string): string {
  try {
    const st = statSync(path)
    return `${st.ino}:${st.size}:${st.mtimeMs}`
  } catch {
    return 'missing'
  }
}
