/**
 * Indexes gates by the tool names and shell programs a call must have for them to match, so a check
 * runs only the gates that can match it (a 10,000-gate policy costs what its candidates cost). A gate
 * whose `when` gives no such key (a glob tool, a `not`, a path-only leaf) stays in the always-run list.
 * The index only ever skips gates that cannot match: `gate-index.test.ts` compares it with running
 * every gate, over the corpus and generated gates.
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
      return node.leaf.keys && (node.leaf.keys.tools || node.leaf.keys.programs) ? node.leaf.keys : undefined
    case 'all': {
      let best: IndexKeys | undefined
      for (const child of node.nodes) {
        const keys = nodeKeys(child)
        if (keys && (!best || cost(keys) < cost(best))) best = keys
      }
      return best
    }
    case 'any': {
      const tools = new Set<string>()
      const programs = new Set<string>()
      for (const child of node.nodes) {
        const keys = nodeKeys(child)
        if (!keys) return undefined
        for (const t of keys.tools ?? []) tools.add(t)
        for (const p of keys.programs ?? []) programs.add(p)
      }
      return { ...(tools.size ? { tools: [...tools] } : {}), ...(programs.size ? { programs: [...programs] } : {}) }
    }
    case 'not':
      return undefined
  }
}

// A few tool names (Bash, Read, ...) cover most calls while programs are many: prefer program keys.
const cost = (k: IndexKeys): number => (k.tools?.length ?? 0) * 100 + (k.programs?.length ?? 0)

/** One layer's gates, indexed; `candidates` keeps policy order. */
export class GateIndex {
  readonly gates: readonly CompiledGate[]
  readonly #always: number[] = []
  #alwaysGates: readonly CompiledGate[] = []
  /** Dedupe marks for `candidates` (an epoch per call instead of a fresh Set). */
  #seen?: Uint32Array
  #epoch = 0
  readonly #byTool = new Map<string, number[]>()
  readonly #byProgram = new Map<string, number[]>()

  constructor(gates: readonly CompiledGate[]) {
    this.gates = gates
    gates.forEach((gate, i) => {
      if (!gate.keys) {
        this.#always.push(i)
        return
      }
      for (const tool of gate.keys.tools ?? []) push(this.#byTool, tool, i)
      for (const program of gate.keys.programs ?? []) push(this.#byProgram, program, i)
    })
    this.#alwaysGates = this.#always.map((i) => gates[i]!)
  }

  /** The gates that can match `request`, in policy order (a superset of those that do). */
  candidates(request: EvalRequest): readonly CompiledGate[] {
    if (this.#always.length === this.gates.length) return this.gates
    const lists: number[][] = []
    const byTool = this.#byTool.get(request.tool)
    if (byTool) lists.push(byTool)
    if (this.#byProgram.size > 0) {
      for (const command of request.shell?.commands ?? []) {
        const list = this.#byProgram.get(command.program)
        if (list && !lists.includes(list)) lists.push(list)
      }
    }
    if (lists.length === 0) return this.#alwaysGates
    // Each list is in policy order; a gate in two lists (tool and program keys) is taken once.
    const seen = (this.#seen ??= new Uint32Array(this.gates.length))
    if (this.#epoch === 0xffffffff) {
      seen.fill(0)
      this.#epoch = 0
    }
    const epoch = ++this.#epoch
    const picked = [...this.#always]
    for (const list of lists) {
      for (const i of list) {
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
