import type { Logger } from 'pino'
import type { EngineHooks } from '../hooks.ts'
import type { Ledger } from '../ledger/ledger.ts'
import type { Registries } from '../plugin.ts'
import type { DisableSealer } from '../policy/disable-seal.ts'
import type { PolicyStore } from '../policy/store.ts'
import type { SessionStore } from '../sessions/store.ts'
import type { StateDb } from '../state/state-db.ts'
import type { Mode } from '../types.ts'

/** One engine's parts and settings; `mode`, `guardrailsEnabled` and `svcPorts` change while it runs. */
export interface EngineState {
  /** `$SVC_HOME`. */
  readonly home: string
  readonly policiesDir: string
  /** Home directory of the governed user (`~` in paths). */
  readonly userHome: string
  readonly log: Logger
  readonly hooks: EngineHooks
  readonly registry: Registries
  readonly sealer: DisableSealer
  readonly policy: PolicyStore
  readonly ledger: Ledger
  readonly sessions: SessionStore
  /** state.db: gate counters, the sealed mode row, the guardrail switch. */
  readonly stateDb: StateDb
  /** The lowest mode the managed file allows, when it sets one. */
  readonly floor: Mode | undefined
  mode: Mode
  guardrailsEnabled: boolean
  svcPorts: readonly number[]
}
