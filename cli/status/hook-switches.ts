/**
 * Settings that switch svc's hooks off without touching svc's entries, as each registered harness describes
 * them (`hookSwitches` in its definition: which user and project files, and what in them). Read-only and light:
 * `svc status` runs it for the user's files and for every project directory it knows of. Harnesses are listed by
 * name (a harness without such settings has no `hookSwitches`).
 */
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { HarnessDefinition, HookSwitches } from '../../harness-contract/index.ts'
import { harnessPlugins } from '../../harnesses/index.ts'
import { harnessEnvOf } from '../../plugins/installer/index.ts'

export interface HookSwitch {
  readonly harness: string
  readonly file: string
  readonly setting: string
}

const registered = (): readonly HarnessDefinition[] => harnessPlugins.map((p) => p.harness)

/** The harnesses that have such settings, by display name. */
function switchable(harnesses: readonly HarnessDefinition[]): (HarnessDefinition & { hookSwitches: HookSwitches })[] {
  return harnesses
    .filter((h): h is HarnessDefinition & { hookSwitches: HookSwitches } => !!h.hookSwitches)
    .sort((a, b) => (a.displayName < b.displayName ? -1 : a.displayName > b.displayName ? 1 : 0))
}

function switchesIn(harness: HarnessDefinition & { hookSwitches: HookSwitches }, file: string): HookSwitch[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return []
  }
  try {
    return harness.hookSwitches.found(text).map((setting) => ({ harness: harness.id, file, setting }))
  } catch {
    return []
  }
}

/** Switches in the user-level configs (where each harness's `configVariables` put them). */
export function userHookSwitches(home: string, vars: Readonly<Record<string, string | undefined>>, harnesses: readonly HarnessDefinition[] = registered()): HookSwitch[] {
  const env = harnessEnvOf(vars, home, harnesses)
  return switchable(harnesses).flatMap((h) => h.hookSwitches.userFiles(env).flatMap((file) => switchesIn(h, file)))
}

/** Switches in the project layers of `dir` and each directory above it (harnesses search upwards), below `stop`. */
export function projectHookSwitches(dir: string, stop: string, harnesses: readonly HarnessDefinition[] = registered()): HookSwitch[] {
  const out: HookSwitch[] = []
  const found = switchable(harnesses)
  for (let d = dir; ; d = dirname(d)) {
    if (d === stop) break
    for (const h of found) for (const file of h.hookSwitches.projectFiles(d)) out.push(...switchesIn(h, file))
    if (dirname(d) === d) break
  }
  return out
}
