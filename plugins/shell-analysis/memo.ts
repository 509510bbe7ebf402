/**
 * A validated memo of shell analyses. Agents run the same commands in the same directory over and over
 * (`git status`, `npm test`), and parsing and walking them is most of what a check costs. An analysis is a
 * pure function of its options, the command text and what it read from disk (disk.ts records every read),
 * so a remembered analysis is returned only after each of its reads, asked again, gives the same answer:
 * a script rewritten since, a symlink swapped, a `.git` or package.json planted, a directory created, each
 * makes the re-check fail and the command is analysed afresh. An analysis that expanded a wildcard against
 * the disk is never remembered (a directory listing cannot be re-checked cheaply).
 */
import type { CommandAnalysis } from '../../core/types.ts'
import { analyzeCommand, type AnalyzeOptions } from './analyze.ts'
import { DiskReads, stillTrue, type Observation } from './disk.ts'

/** Remembered analyses (least recently used first out): a few hundred KiB at most. */
const MAX_ENTRIES = 256
/** Longer commands are analysed every time (they are rare, and their results large). */
const MAX_RAW = 4096
/** An analysis that read more than this many paths is not remembered (its re-check costs as much as a run). */
const MAX_OBSERVATIONS = 128

interface Entry {
  readonly analysis: CommandAnalysis
  readonly observations: readonly Observation[]
}

export class AnalysisMemo {
  readonly #entries = new Map<string, Entry>()
  #hits = 0
  #misses = 0

  /** `analyzeCommand(raw, opts)`, answered from memory when every disk read it made still holds. */
  analyze(raw: string, opts: AnalyzeOptions): CommandAnalysis {
    if (raw.length > MAX_RAW || opts.disk !== undefined) return analyzeCommand(raw, opts)
    const key = keyOf(raw, opts)
    const entry = this.#entries.get(key)
    if (entry !== undefined) {
      this.#entries.delete(key)
      if (stillTrue(entry.observations)) {
        this.#entries.set(key, entry)
        this.#hits++
        return entry.analysis
      }
    }
    this.#misses++
    const disk = new DiskReads(opts.caller)
    const analysis = deepFreeze(analyzeCommand(raw, { ...opts, disk }))
    const observations = disk.observations()
    if (disk.unrepeatable || observations.length > MAX_OBSERVATIONS) return analysis
    this.#entries.set(key, { analysis, observations })
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!)
    return analysis
  }

  /** Counts for tests and benches: analyses answered from memory, analyses run, entries held. */
  stats(): { hits: number; misses: number; size: number } {
    return { hits: this.#hits, misses: this.#misses, size: this.#entries.size }
  }
}

/** Everything an analysis depends on besides the disk: the text and every option that is data (the parsers are the plugin's own). */
function keyOf(raw: string, opts: AnalyzeOptions): string {
  return JSON.stringify([
    raw,
    opts.cwd ?? null,
    opts.home,
    opts.svcHome ?? null,
    opts.fileDepth ?? 0,
    opts.budget ?? null,
    opts.codeParsers !== undefined,
    opts.daemonAccount ?? null,
    opts.caller ?? null,
    listKey(opts.harnessPrograms),
    listKey(opts.harnessVariables),
  ])
}

// The harness lists are the registry's own arrays, replaced (never changed) when a plugin adds to them: each is
// written out once, not on every call.
const joined = new WeakMap<readonly string[], string>()
const listKey = (list: readonly string[] | undefined): string | null =>
  list === undefined ? null : list.length === 0 ? '[]' : (joined.get(list) ?? joined.set(list, JSON.stringify(list)).get(list)!)

/** A remembered analysis is shared by every call that repeats it: nothing may change it afterwards. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
