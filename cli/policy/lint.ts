/**
 * `svc policy lint`: what makes a policy file wrong or useless before it is loaded. Schema and compile errors
 * carry line:col, every one of a file (each gate is checked alone when the file does not load), with a did-you-mean;
 * a gate id defined in two files is an error (a sealed false-positive marker excepted),
 * because the layers would silently run both; a gate with the same `when` as an earlier one is shadowed;
 * a `when` that matches every probe call (plain `ls`, a read in the project, ...) or whose `tool` constraints
 * cannot all hold matches everything or nothing.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { isSeq, LineCounter, parseDocument, stringify } from 'yaml'
import {
  applyPlugins,
  canonicalSha256,
  createHooks,
  createRegistries,
  EngineError,
  evaluateNode,
  GateCompiler,
  parsePolicy,
  type CompiledGate,
  type Registries,
} from '../../core/index.ts'
import { didYouMean } from './did-you-mean.ts'
import { allPlugins } from '../plugins.ts'
import { fixtureWorld } from './world.ts'

export interface Finding {
  readonly file: string
  readonly line?: number
  readonly col?: number
  readonly severity: 'error' | 'warning'
  readonly message: string
}

const PROBES: readonly { tool: string; input: Record<string, unknown> }[] = [
  { tool: 'Bash', input: { command: 'ls' } },
  { tool: 'Bash', input: { command: 'echo hello' } },
  { tool: 'Bash', input: { command: 'git status' } },
  { tool: 'Bash', input: { command: 'npm test' } },
  { tool: 'Read', input: { file_path: '~/proj/README.md' } },
  { tool: 'Write', input: { file_path: '~/proj/notes.txt', content: 'x' } },
  { tool: 'WebFetch', input: { url: 'https://example.com/' } },
  { tool: 'Grep', input: { pattern: 'TODO' } },
]

function findingOf(file: string, err: unknown, registry: Registries, at?: { line?: number; col?: number; gate?: number }): Finding {
  if (!(err instanceof EngineError)) return { file, severity: 'error', message: (err as Error).message }
  // A gate checked alone is /gates/0 of its one-gate file: name its place in the real one.
  const message = at?.gate === undefined ? err.message : err.message.replace('/gates/0', `/gates/${at.gate}`)
  return { file, line: at ? at.line : err.loc?.line, col: at ? at.col : err.loc?.col, severity: 'error', message: `${err.code} ${message}${didYouMean(message, registry)}` }
}

/**
 * Every error of a file, not only the first: when the file as a whole does not load, its header and each gate
 * are checked alone (at the gate's line), and each gate that passes the schema is compiled alone too.
 */
function compileFile(file: string, compiler: GateCompiler, registry: Registries): { gates: CompiledGate[]; findings: Finding[] } {
  const text = readFileSync(file, 'utf8')
  let parsed: ReturnType<typeof parsePolicy>
  try {
    parsed = parsePolicy(text, file)
  } catch (err) {
    return { gates: [], findings: eachGate(file, text, err, compiler, registry) }
  }
  const findings: Finding[] = []
  for (const gate of parsed.gates) {
    try {
      compiler.compileAll([gate], { layer: 'daemon', source: file, policyMode: parsed.mode })
    } catch (err) {
      findings.push(findingOf(file, err, registry))
    }
  }
  if (findings.length > 0) return { gates: [], findings }
  try {
    return { gates: compiler.compileAll(parsed.gates, { layer: 'daemon', source: file, policyMode: parsed.mode }), findings }
  } catch (err) {
    return { gates: [], findings: [findingOf(file, err, registry)] }
  }
}

function eachGate(file: string, text: string, whole: unknown, compiler: GateCompiler, registry: Registries): Finding[] {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines })
  const data = doc.errors.length === 0 ? (doc.toJS() as Record<string, unknown> | null) : null
  const items = doc.get('gates')
  if (!data || !Array.isArray(data.gates) || !isSeq(items)) return [findingOf(file, whole, registry)]
  const findings: Finding[] = []
  try {
    parsePolicy(stringify({ ...data, gates: [] }), file)
  } catch (err) {
    findings.push(findingOf(file, err, registry, { line: 1 }))
  }
  data.gates.forEach((gate, i) => {
    const node = items.items[i] as { range?: [number, number, number] } | undefined
    const pos = node?.range ? lines.linePos(node.range[0]) : undefined
    try {
      const one = parsePolicy(stringify({ version: 1, gates: [gate] }), file)
      compiler.compileAll(one.gates, { layer: 'daemon', source: file, policyMode: one.mode })
    } catch (err) {
      findings.push(findingOf(file, err, registry, { line: pos?.line, col: pos?.col, gate: i }))
    }
  })
  return findings.length > 0 ? findings : [findingOf(file, whole, registry)]
}

// `all` of several `tool` lists without a glob and without a common name can never hold.
function contradictoryTools(when: Readonly<Record<string, unknown>>): boolean {
  const all = Array.isArray(when.all) ? (when.all as Record<string, unknown>[]) : []
  const lists = [when, ...all]
    .map((n) => n?.tool)
    .filter((t) => t !== undefined)
    .map((t) => (Array.isArray(t) ? t.map(String) : [String(t)]))
  if (lists.length < 2 || lists.some((l) => l.some((t) => /[*?[]/.test(t)))) return false
  return lists.reduce((acc, l) => acc.filter((t) => l.includes(t))).length === 0
}

/** Lints `targets` against the other layers' files `context`. */
export async function lintPolicies(targets: readonly string[], context: readonly string[]): Promise<Finding[]> {
  const hooks = createHooks()
  const registry = createRegistries()
  applyPlugins(allPlugins, { hooks, registry, log: pino({ level: 'silent' }), home: join('/nonexistent', 'svc-lint') })
  const compiler = new GateCompiler(registry, hooks)
  const findings: Finding[] = []
  const byFile = new Map<string, CompiledGate[]>()
  for (const file of new Set([...context, ...targets])) {
    const compiled = compileFile(file, compiler, registry)
    if (targets.includes(file)) findings.push(...compiled.findings)
    if (compiled.findings.length === 0) byFile.set(file, compiled.gates)
  }
  const isMarker = (g: CompiledGate) => g.disabled && g.node === undefined && g.disabledBy !== undefined
  const at = (g: CompiledGate) => ({ file: g.loc.file, line: g.loc.line, col: g.loc.col })
  const good = targets.filter((t) => byFile.has(t))
  const world = good.length > 0 ? await fixtureWorld(good) : undefined
  try {
    for (const file of good) {
      const seenWhen = new Map<string, CompiledGate>()
      for (const gate of byFile.get(file)!) {
        if (isMarker(gate)) continue
        for (const [other, gates] of byFile) {
          if (other === file) continue
          const twin = gates.find((g) => g.id === gate.id && !isMarker(g))
          if (twin)
            findings.push({
              ...at(gate),
              severity: 'error',
              message: `gate id "${gate.id}" is also defined in ${other}${twin.loc.line ? `:${twin.loc.line}` : ''}; ids must be unique across layers`,
            })
        }
        const key = canonicalSha256({ when: gate.when, on_hit: gate.onHit })
        const earlier = seenWhen.get(key)
        if (earlier) findings.push({ ...at(gate), severity: 'warning', message: `gate "${gate.id}" is shadowed by "${earlier.id}" (same when and on_hit)` })
        else seenWhen.set(key, gate)
        if (contradictoryTools(gate.when))
          findings.push({ ...at(gate), severity: 'error', message: `gate "${gate.id}": its \`tool\` constraints cannot all hold, so \`when\` matches nothing` })
        if (world && gate.node) {
          const ctx = world.engine.evalContext()
          let all = true
          for (const probe of PROBES) {
            const { request } = await world.engine.decide({ sessionId: 'lint', source: 'lint', ...probe, cwd: world.cwd })
            if (evaluateNode(gate.node, request, ctx) === undefined) {
              all = false
              break
            }
          }
          if (all) findings.push({ ...at(gate), severity: 'error', message: `gate "${gate.id}": \`when\` matches every call (even \`ls\` and a read in the project)` })
        }
      }
    }
  } finally {
    await world?.close()
  }
  return findings
}
