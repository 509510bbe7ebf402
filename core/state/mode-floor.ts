/**
 * The managed mode floor: the lowest daemon mode a machine's administrator allows (the policy-bundle
 * plugin reads it from the root-owned managed file at initialize). The mode may go above it, never below.
 */
import { RefusalError } from '../errors.ts'
import { extensionRegistry, type Registries } from '../plugin.ts'
import type { Mode } from '../types.ts'

const RANK: Readonly<Record<Mode, number>> = { monitor: 0, firewall: 1 }

/** Where a plugin sets the floor (key `mode`); read by the engine after initialize. */
export function modeFloorRegistry(registry: Registries): Map<'mode', Mode> {
  return extensionRegistry<Mode>(registry, 'mode-floor') as Map<'mode', Mode>
}

/** True when `mode` is below `floor`. */
export function belowFloor(mode: Mode, floor: Mode | undefined): boolean {
  return floor !== undefined && RANK[mode] < RANK[floor]
}

/** Refuses a mode change below the managed floor (403: only whoever writes the managed file can lower it). */
export function assertAboveFloor(mode: Mode, floor: Mode | undefined): void {
  if (belowFloor(mode, floor)) {
    throw new RefusalError(403, 'forbidden', `mode ${mode} is below the managed floor (${floor}); only the machine's administrator can lower it, in the managed file`)
  }
}
