/**
 * "Did you mean" for policy load errors: an unknown gate field, an unknown predicate kind, or an unknown setting
 * of a kind, each compared with the names that would have been accepted (the schemas the compiler checks with).
 */
import { gateSchema, policyFileSchema, type Registries } from '../../core/index.ts'

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  return d[a.length]![b.length]!
}

/** The closest of `candidates` to `word`, if it is close enough to be a typo. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: { name: string; d: number } | undefined
  for (const name of candidates) {
    const d = distance(word.toLowerCase(), name.toLowerCase())
    if (d < (best?.d ?? Number.POSITIVE_INFINITY)) best = { name, d }
  }
  return best && best.d > 0 && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined
}

/** ` (did you mean "x"?)` for a load error message, or ''. */
export function didYouMean(message: string, registry: Registries): string {
  let guess: string | undefined
  const field = /unknown field "([^"]+)"/.exec(message)
  const predicate = /unknown predicate "([^"]+)".*\(known: ([^)]+)\)/.exec(message)
  const setting = /(\w+) must NOT have additional properties "([^"]+)"/.exec(message)
  if (predicate) guess = closest(predicate[1]!, predicate[2]!.split(', '))
  else if (field) guess = closest(field[1]!, /\/gates\/\d+/.test(message) ? Object.keys(gateSchema.properties) : Object.keys(policyFileSchema.properties))
  else if (setting) {
    const schema = registry.gateKinds.get(setting[1]!)?.schema as { properties?: Record<string, unknown> } | undefined
    guess = closest(setting[2]!, Object.keys(schema?.properties ?? {}))
  }
  return guess ? ` (did you mean "${guess}"?)` : ''
}
