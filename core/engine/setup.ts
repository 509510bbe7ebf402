/**
 * What one engine holds, and how it comes to hold it: plugins applied, policy loaded (a bad policy at boot is
 * fatal), ledger, sessions and state opened, the mode the machine kept. Every engine function takes this state.
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { EngineOptions } from './contract.ts'
import { sha256 } from '../hash.ts'
import { createHooks } from '../hooks.ts'
import { SqliteLedger } from '../ledger/ledger.ts'
import { svcPortSet } from '../match/svc-ports.ts'
import { applyPlugins, createRegistries } from '../plugin.ts'
import { GateCompiler } from '../policy/compile.ts'
import { openDisableSealer } from '../policy/disable-seal.ts'
import { openParseCache } from '../policy/parse-cache.ts'
import { parserFingerprint } from '../policy/parse.ts'
import { PolicyStore } from '../policy/store.ts'
import { SessionStore } from '../sessions/store.ts'
import { packFloorRegistry } from '../policy/sources.ts'
import { modeFloorRegistry } from '../state/mode-floor.ts'
import { latestLedgerMode, startMode } from '../state/mode-record.ts'
import { StateDb } from '../state/state-db.ts'
import type { Mode } from '../types.ts'
import type { EngineState } from './state.ts'

import { recordEvent } from './record.ts'

/** Opens everything an engine needs; a failure closes what was opened and throws. */
export async function setupEngine(opts: EngineOptions): Promise<EngineState> {
  mkdirSync(opts.home, { recursive: true, mode: 0o700 })
  const hooks = createHooks()
  const registry = createRegistries()
  applyPlugins(opts.plugins, { hooks, registry, log: opts.log, home: opts.home, env: opts.env ?? {} })
  await hooks.initialize.promise()
  const sealer = openDisableSealer(opts.home)
  // A reload comes from the policy watcher, after setup has returned the state it ledgers with.
  const onReload = (hash: string, previous: string) => {
    recordEvent(state, 'policy_reloaded', { policy_hash: hash, previous_policy_hash: previous }, `policy reloaded: ${previous} -> ${hash}`).catch((err: unknown) =>
      opts.log.error({ err }, 'could not ledger a policy reload'),
    )
  }
  const compiler = new GateCompiler(registry, hooks)
  const parseCache = openParseCache(join(opts.home, 'cache', 'policy'), sha256(`${parserFingerprint()}\0${compiler.schemaFingerprint()}`))
  const policy = new PolicyStore({ policiesDir: opts.policiesDir, home: opts.home, compiler, sealer, log: opts.log.child({ part: 'policy' }), parseCache, onReload, packFloor: packFloorRegistry(registry) })
  policy.load(Date.now())
  const ledger = opts.ledger ?? new SqliteLedger(join(opts.home, 'ledger.db'))
  const sessions = opts.sessions ?? new SessionStore()
  // The daemon signs checkpoints by itself, with an active session key (the current session's first).
  ledger.autoCheckpoint(() => {
    const now = Date.now()
    const signer = [sessions.current(), ...sessions.list()].find((s) => s?.signCheckpoint && sessions.status(s.id, now).state === 'active')
    signer?.signCheckpoint?.(ledger)
  }, opts.checkpointIntervalMs)
  const stateDb = new StateDb(join(opts.home, 'state.db'), (err) => opts.log.error({ err }, 'state.db: gate counters could not be saved; retrying every second'))
  const userHome = opts.userHome ?? homedir()
  let mode: Mode
  try {
    mode = startMode(stateDb.modeRow(), latestLedgerMode(ledger), sealer, join(opts.home, 'state.db'))
  } catch (err) {
    stateDb.close()
    ledger.close()
    throw err
  }
  const guardrailsEnabled = stateDb.getGuardrailsEnabled()
  if (opts.watch) policy.watch()
  const state: EngineState = {
    home: opts.home,
    policiesDir: opts.policiesDir,
    userHome,
    log: opts.log,
    hooks,
    registry,
    sealer,
    policy,
    ledger,
    sessions,
    stateDb,
    floor: modeFloorRegistry(registry).get('mode'),
    mode,
    guardrailsEnabled,
    svcPorts: svcPortSet(opts.svcPorts),
  }
  return state
}

/** Stops the policy watcher and plugins, then closes state and ledger (the ledger commits what is queued first). */
export async function closeEngine(state: EngineState): Promise<void> {
  state.policy.close()
  await state.hooks.shutdown.promise()
  state.stateDb.close()
  await state.ledger.close()
}
