/**
 * Which grants let a denied call through: a `call` grant only for the exact payload (tool, input and cwd, by
 * their canonical hash) whose code the user granted, a `rule` grant only in its project; each only over its own
 * gates. The call goes through only when every gate that denied it is covered; otherwise nothing is used.
 */
import type { GrantRow } from './store.ts'

/** True when `cwd` is `project` or inside it. */
export function within(cwd: string, project: string): boolean {
  const root = project.endsWith('/') ? project.slice(0, -1) : project
  return cwd === root || cwd.startsWith(`${root}/`)
}

/** The grants to use for a call `denying` gates denied, or undefined when they do not cover them all. */
export function grantsFor(call: { readonly payloadHash: string; readonly cwd?: string }, denying: readonly string[], live: readonly GrantRow[]): GrantRow[] | undefined {
  const covered = new Set<string>()
  const used: GrantRow[] = []
  // Rules first: a project window covering the call leaves a once-grant unused for its own call.
  const ordered = [...live].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'rule' ? -1 : 1))
  for (const grant of ordered) {
    const applies = grant.kind === 'call' ? grant.payload_hash === call.payloadHash : call.cwd !== undefined && grant.project !== null && within(call.cwd, grant.project)
    if (!applies) continue
    const adds = grant.gates.filter((g) => denying.includes(g) && !covered.has(g))
    if (adds.length === 0) continue
    for (const g of adds) covered.add(g)
    used.push(grant)
  }
  return denying.length > 0 && denying.every((g) => covered.has(g)) ? used : undefined
}
