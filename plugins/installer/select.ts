/**
 * Which harnesses an install or uninstall covers: the ones named (each must be registered; planned ones
 * answer "not yet implemented"), or every registered harness detected for this user or repo.
 */
import { existsSync } from 'node:fs'
import { RefusalError } from '../../core/index.ts'
import type { HarnessDefinition, HarnessEnv, HarnessScope } from '../../harness-contract/index.ts'

/** A selection that cannot be served: 501 for planned harnesses, 400 for unknown ones. */
export class HarnessSelectionError extends RefusalError {
  constructor(status: 400 | 501, message: string) {
    super(status, status === 501 ? 'not_implemented' : 'invalid_request', message)
  }
}

export interface Selection {
  readonly harnesses: readonly HarnessDefinition[]
  /** Harnesses left out, with why (not detected). */
  readonly skipped: readonly { readonly harness: string; readonly reason: string }[]
}

/**
 * The harnesses to install for `ids`, or every registered harness `detect` finds in `scope` when none are
 * named; throws HarnessSelectionError (400 unknown, 501 planned) for a name it cannot serve.
 */
export function selectHarnesses(
  registered: ReadonlyMap<string, HarnessDefinition>,
  planned: ReadonlySet<string>,
  ids: readonly string[] | undefined,
  env: HarnessEnv,
  scope: HarnessScope,
): Selection {
  const supported = [...registered.keys()].join(', ')
  if (ids && ids.length > 0) {
    const out: HarnessDefinition[] = []
    for (const id of new Set(ids)) {
      const harness = registered.get(id)
      if (harness) out.push(harness)
      else if (planned.has(id)) throw new HarnessSelectionError(501, `harness "${id}" is not yet implemented; supported: ${supported}`)
      else throw new HarnessSelectionError(400, `unknown harness "${id}"; supported: ${supported}`)
    }
    return { harnesses: out, skipped: [] }
  }
  const harnesses: HarnessDefinition[] = []
  const skipped: { harness: string; reason: string }[] = []
  for (const harness of registered.values()) {
    if (harness.detect(env, scope, existsSync)) harnesses.push(harness)
    else skipped.push({ harness: harness.id, reason: scope === 'user' ? 'not installed for this user' : 'not configured in this repository' })
  }
  return { harnesses, skipped }
}
