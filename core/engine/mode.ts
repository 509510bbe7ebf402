/**
 * Mode changes: ledgered first (who, from, to), then sealed into state.db, never below the managed floor.
 */
import { assertAboveFloor, belowFloor } from '../state/mode-floor.ts'
import { sealMode } from '../state/mode-record.ts'
import type { LedgerEntry, Mode } from '../types.ts'
import { recordEvent } from './record.ts'
import type { EngineState } from './state.ts'

/** Sets the daemon mode: a `mode_changed` control leaf first (who, from, to, why), then the sealed state row. */
export async function setMode(state: EngineState, next: Mode, who: string, reason?: string): Promise<LedgerEntry> {
  assertAboveFloor(next, state.floor)
  const previous = state.mode
  // A change whose sealed row could not be written would refuse the next start: check first.
  state.stateDb.assertWritable()
  const entry = await recordEvent(
    state,
    'mode_changed',
    { who, from: previous, to: next, ...(reason ? { reason } : {}) },
    `daemon mode ${previous} -> ${next} by ${who}${reason ? `: ${reason}` : ''}`,
  )
  state.mode = next
  try {
    state.stateDb.setModeRow(sealMode(state.sealer, next, entry.seq))
  } catch (err) {
    state.log.error({ err, mode: next, seq: entry.seq }, 'mode changed and ledgered, but state.db could not store it: the next start will refuse until the row is fixed')
  }
  return entry
}

/** A machine whose managed floor is above the mode it kept is raised at start, ledgered like any change. */
export async function raiseToFloor(state: EngineState): Promise<void> {
  if (belowFloor(state.mode, state.floor)) await setMode(state, state.floor!, 'managed floor', `the managed file sets the floor mode ${state.floor}`)
}
