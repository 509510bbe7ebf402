/**
 * `svc policy lint`: what makes a policy file wrong or useless before it is loaded. Schema and compile errors
 * carry line:col; a gate id defined in two files is an error (a sealed false-positive marker excepted),
 * because the layers would silently run both; a gate with the same `when` as an earlier one is shadowed;
 * a `when` that matches every probe call (plain `ls`, a read in the project, ...) or whose `tool` constraints
 * cannot all hold matches everything or nothing.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { applyPlugins, canonicalSha256, createHooks, createRegistries, EngineError, evaluateNode, GateCompiler, parsePolicy, type CompiledGate } from '../../core/index.ts'
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

function compileFile(file: string, compiler: GateCompiler): { gates: CompiledGate[]; finding?: Finding } {
  try {
    const parsed = parsePolicy(readFileSync(file, 'utf8'), file)
    return { gates: compiler.compileAll(parsed.gates, { layer: 'daemon', source: file, policyMode: parsed.mode }) }
  } catch (err) {
    if (!(err instanceof EngineError)) return { gates: [], finding: { file, severity: 'error', message: (err as Error).message } }
    return { gates: [], finding: { file, line: err.loc?.line, col: err.loc?.col, severity: 'error', message: `${err.code} ${err.message}` } }
  }
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
    const { gates, finding } = compileFile(file, compiler)
    if (finding && targets.includes(file)) findings.push(finding)
    if (!finding) byFile.set(file, gates)
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
