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

// A call's keys and shape, built once per call: every index it meets (each layer's gates, each `any` node) asks in
// turn within one synchronous pass, so the last call's answer is the one asked for.
let lastShape: { request: EvalRequest; keys: string[]; shape: string } | undefined
function shapeOf(request: EvalRequest): { keys: string[]; shape: string } {
  if (lastShape?.request !== request) lastShape = ((keys) => ({ request, keys, shape: keys.join('\n') }))(callKeys(request))
  return lastShape
}

/** Whether `request` has one of the things `keys` says a match needs (what the gate tester checks a flagged case against). */
export function admits(keys: IndexKeys, request: EvalRequest): boolean {
  const have = new Set(callKeys(request))
  return [...(keys.tools ?? []).map((k) => `t:${k}`), ...(keys.programs ?? []).map((k) => `p:${k}`), ...(keys.facets ?? []).map((k) => `f:${k}`)].some((k) => have.has(k))
}

/** Calls of one shape (tool, programs, facets) share a candidate list; this many shapes are kept. */
const SHAPES = 512

/** One layer's gates (or one `any` node's children), indexed; `candidates` keeps policy order. */
export class GateIndex<T = CompiledGate> {
  readonly gates: readonly T[]
  readonly #always: number[] = []
  #alwaysGates: readonly T[] = []
  readonly #byKey = new Map<string, number[]>()
  readonly #byShape = new Map<string, readonly T[]>()

  constructor(gates: readonly T[], keysOf: (gate: T) => IndexKeys | undefined = (gate) => (gate as CompiledGate).keys) {
    this.gates = gates
    for (const [i, gate] of gates.entries()) {
      const keys = keysOf(gate)
      if (!keys) this.#always.push(i)
      const add = (key: string) => (this.#byKey.get(key) ?? this.#byKey.set(key, []).get(key)!).push(i)
      for (const [tag, list] of Object.entries({ t: keys?.tools, p: keys?.programs, f: keys?.facets })) for (const k of list ?? []) add(`${tag}:${k}`)
    }
    this.#alwaysGates = this.#always.map((i) => gates[i]!)
  }

  /** The gates that can match `request`, in policy order (a superset of those that do). */
  candidates(request: EvalRequest): readonly T[] {
    if (this.#always.length === this.gates.length) return this.gates
    const { keys, shape } = shapeOf(request)
    let picked = this.#byShape.get(shape)
    if (!picked) {
      if (this.#byShape.size >= SHAPES) this.#byShape.clear()
      const held = keys.filter((k) => this.#byKey.has(k))
      picked = held.length === 0 ? this.#alwaysGates : this.#pick(held)
      this.#byShape.set(shape, picked)
    }
    return picked
  }

  #pick(keys: readonly string[]): readonly T[] {
    // Each list is in policy order; a gate in several lists (tool, program and facet keys) is taken once.
    const picked = new Set(this.#always)
    for (const key of keys) for (const i of this.#byKey.get(key)!) picked.add(i)
    return [...picked].sort((a, b) => a - b).map((i) => this.gates[i]!)
  }
}

const cache = new WeakMap<readonly CompiledGate[], GateIndex>()

/** The index of a gate list, built once per list (lists are rebuilt, never mutated, on reload). */
export const indexOf = (gates: readonly CompiledGate[]): GateIndex => cache.get(gates) ?? cache.set(gates, new GateIndex(gates)).get(gates)!

const childCache = new WeakMap<readonly CompiledNode[], GateIndex<CompiledNode>>()

/** The children of an `any` node that can hold for `request`, in order (a pack's gate lists one command per tool it covers). */
export function anyCandidates(children: readonly CompiledNode[], request: EvalRequest): readonly CompiledNode[] {
  return (childCache.get(children) ?? childCache.set(children, new GateIndex(children, nodeKeys)).get(children)!).candidates(request)
}
