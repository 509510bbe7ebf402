/**
 * What policy a bench decides under: every shipped pack must be on (a bench home has no packs.json, so none is
 * off and each is at its shipped severity), and how many gates the index lets a call skip.
 */
import { readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Engine, Session, ToolCall } from '../../core/index.ts'
import { indexOf } from '../../core/policy/gate-index.ts'

/** One line naming the packs and gates in force; throws when a shipped pack is missing from the policy. */
export function packsInForce(engine: Engine, policiesDir: string): string {
  const shipped = readdirSync(policiesDir).filter((f) => /\.ya?ml$/.test(f))
  const loaded = new Set(engine.policy.allGates().map((g) => basename(g.loc.file)))
  const off = shipped.filter((f) => !loaded.has(f) && !loaded.has(join(policiesDir, f)))
  if (off.length > 0) throw new Error(`bench: shipped packs not in force: ${off.join(', ')} (every pack must be enabled)`)
  const gates = engine.policy.allGates()
  const unindexed = gates.filter((g) => !g.keys).length
  return `${shipped.length} of ${shipped.length} shipped packs on, ${gates.length} gates (${unindexed} always evaluated)`
}

/** Mean number of gates the engine evaluates per call of `calls` (the index's candidates, every layer). */
export async function meanCandidates(engine: Engine, calls: readonly ToolCall[], session: Session): Promise<number> {
  let total = 0
  for (const call of calls) {
    const ctx = engine.evalContext(session)
    const { request } = await engine.decide(call, session)
    for (const layer of engine.policy.gatesFor(request, ctx)) total += indexOf(layer.gates).candidates(request).length
  }
  return total / calls.length
}
