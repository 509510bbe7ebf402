/**
 * Indexes gates by what a call must have to match them (a tool, a shell program, or a facet: paths, URLs, an MCP
 * target, a shell command, a signal), so a `psql` pack never runs for `git status`. A gate with no such key (a glob
 * tool, a `not`) always runs; gate-index.test.ts checks the index only skips gates that cannot match.
 */
import type { EvalRequest, IndexKeys } from '../types.ts'
import type { CompiledGate, CompiledNode } from './compiled.ts'

/**
 * What a call needs for `node` to hold, or undefined when it cannot be said: a leaf's hint; for `all`
 * the most selective child's (each child is necessary); for `any` the union of every child's (all must say).
 */
export function nodeKeys(node: CompiledNode): IndexKeys | undefined {
  switch (node.op) {
    case 'leaf':
      return keyCount(node.leaf.keys) > 0 ? node.leaf.keys : undefined
    case 'all': {
      let best: IndexKeys | undefined
      for (const child of node.nodes) {
        const keys = nodeKeys(child)
        if (keys && (!best || cost(keys) < cost(best))) best = keys
      }
      return best
    }
    case 'any': {
      const union = { tools: new Set<string>(), programs: new Set<string>(), facets: new Set<string>() }
      for (const child of node.nodes) {
        const keys = nodeKeys(child)
        if (!keys) return undefined
        for (const field of ['tools', 'programs', 'facets'] as const) for (const k of keys[field] ?? []) union[field].add(k)
      }
      return Object.fromEntries(Object.entries(union).flatMap(([field, set]) => (set.size ? [[field, [...set]]] : [])))
    }
    case 'not':
      return undefined
  }
}

const keyCount = (k: IndexKeys | undefined): number => (k ? (k.tools?.length ?? 0) + (k.programs?.length ?? 0) + (k.facets?.length ?? 0) : 0)
// Rough share of calls with each key: a few tools (Bash, Read) and facets (paths) cover most calls, programs and signals are many.
const FACET_COST: Record<string, number> = { shell: 100, commands: 90, paths: 60, urls: 20, mcp: 20 }
const cost = (k: IndexKeys): number => (k.tools?.length ?? 0) * 100 + (k.programs?.length ?? 0) + (k.facets ?? []).reduce((n, f) => n + (FACET_COST[f] ?? 1), 0)

/** The facets of `request` a leaf's hint can name: the parts of the call each kind of leaf reads. */
export function callFacets(request: EvalRequest): string[] {
  const facets: string[] = []
  const shell = request.shell
  if (shell) facets.push('shell', ...(shell.commands.length > 0 ? ['commands'] : []), ...shell.signals.map((s) => `signal:${s}`))
  // A command's writes are among its paths; both are asked, so a hand-built command cannot slip past.
  if (request.paths.length > 0 || shell?.commands.some((c) => (c.paths?.length ?? 0) + (c.writes?.length ?? 0) > 0)) facets.push('paths')
  if (request.urls.length > 0) facets.push('urls')
  if (request.mcp) facets.push('mcp')
  return facets
}

/** The index's keys of `request`, as looked up: `t:` its tool, `p:` each shell program, `f:` each facet. */
function callKeys(request: EvalRequest): string[] {
  return [`t:${request.tool}`, ...(request.shell?.commands ?? []).map((c) => `p:${c.program}`), ...callFacets(request).map((f) => `f:${f}`)]
}

/** Whether `request` has one of the things `keys` says a match needs (what the gate tester checks a flagged case against). */
export function admits(keys: IndexKeys, request: EvalRequest): boolean {
  const have = new Set(callKeys(request))
  return [...(keys.tools ?? []).map((k) => `t:${k}`), ...(keys.programs ?? []).map((k) => `p:${k}`), ...(keys.facets ?? []).map((k) => `f:${k}`)].some((k) => have.has(k))
}

/** Calls of one shape (tool, programs, facets) share a candidate list; this many shapes are kept. */
const SHAPES = 512

/** One layer's gates, indexed; `candidates` keeps policy order. */
export class GateIndex {
  readonly gates: readonly CompiledGate[]
  readonly #always: number[] = []
  #alwaysGates: readonly CompiledGate[] = []
  /** Dedupe marks for `candidates` (an epoch per call instead of a fresh Set). */
  #seen?: Uint32Array
  #epoch = 0
  readonly #byKey = new Map<string, number[]>()
  readonly #byShape = new Map<string, readonly CompiledGate[]>()

  constructor(gates: readonly CompiledGate[]) {
    this.gates = gates
    gates.forEach((gate, i) => {
      if (!gate.keys) {
        this.#always.push(i)
        return
      }
      for (const tool of gate.keys.tools ?? []) push(this.#byKey, `t:${tool}`, i)
      for (const program of gate.keys.programs ?? []) push(this.#byKey, `p:${program}`, i)
      for (const facet of gate.keys.facets ?? []) push(this.#byKey, `f:${facet}`, i)
    })
    this.#alwaysGates = this.#always.map((i) => gates[i]!)
  }

  /** The gates that can match `request`, in policy order (a superset of those that do). */
  candidates(request: EvalRequest): readonly CompiledGate[] {
    if (this.#always.length === this.gates.length) return this.gates
    const keys = callKeys(request).filter((k) => this.#byKey.has(k))
    if (keys.length === 0) return this.#alwaysGates
    const shape = keys.join('\n')
    let picked = this.#byShape.get(shape)
    if (!picked) {
      if (this.#byShape.size >= SHAPES) this.#byShape.clear()
      picked = this.#pick(keys)
      this.#byShape.set(shape, picked)
    }
    return picked
  }

  #pick(keys: readonly string[]): readonly CompiledGate[] {
    // Each list is in policy order; a gate in several lists (tool, program and facet keys) is taken once.
    const seen = (this.#seen ??= new Uint32Array(this.gates.length))
    if (this.#epoch === 0xffffffff) {
      seen.fill(0)
      this.#epoch = 0
    }
    const epoch = ++this.#epoch
    const picked = [...this.#always]
    for (const key of keys) {
      for (const i of this.#byKey.get(key)!) {
        if (seen[i] === epoch) continue
        seen[i] = epoch
        picked.push(i)
      }
    }
    picked.sort((a, b) => a - b)
    return picked.map((i) => this.gates[i]!)
  }
}

function push(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key)
  if (!list) map.set(key, [i])
  else if (list[list.length - 1] !== i) list.push(i)
}

const cache = new WeakMap<readonly CompiledGate[], GateIndex>()

/** The index of a gate list, built once per list (lists are rebuilt, never mutated, on reload). */
export function indexOf(gates: readonly CompiledGate[]): GateIndex {
  let index = cache.get(gates)
  if (!index) {
    index = new GateIndex(gates)
    cache.set(gates, index)
  }
  return index
}
