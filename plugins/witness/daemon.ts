/**
 * The daemon's witnessing (`SVC_WITNESS_POLICY=<tlog-policy file>`): every `SVC_WITNESS_INTERVAL` (default
 * 60 s) the newest signed checkpoint is countersigned with the host's log key and submitted to each witness
 * of the policy that has a URL and has not cosigned it yet, with a consistency proof from the size that
 * witness last cosigned. Verified cosignatures go to the per-witness state and to the ledger's `cosignatures`
 * view, which GET /v1/ledger/root shows and the OTLP export ships.
 */
import { readFileSync } from 'node:fs'
import type { Logger } from 'pino'
import { parseDuration, type Ledger } from '../../core/index.ts'
import { addCheckpoint } from './client.ts'
import { addLogSignature, loadLogKey } from './log-key.ts'
import { parseWitnessPolicy } from './policy.ts'
import { readWitnessState, writeWitnessState, type WitnessRecord } from './state.ts'

export interface RunningWitnessing {
  /** One round now (tests, shutdown). */
  round(): Promise<void>
  stop(): Promise<void>
}

export function startWitnessing(home: string, env: Readonly<Record<string, string | undefined>>, ledger: Ledger, log: Logger): RunningWitnessing | undefined {
  const file = env.SVC_WITNESS_POLICY
  if (!file) return undefined
  let policy
  try {
    policy = parseWitnessPolicy(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`SVC_WITNESS_POLICY=${file}: ${(err as Error).message}`)
  }
  const witnesses = policy.witnesses.filter((w) => w.url)
  const logKey = loadLogKey(home, ledger.origin)
  let state = readWitnessState(home, ledger.origin)
  ledger.cosignatures = () => Object.entries(state.witnesses).map(([witness, r]) => ({ witness, ...r }))
  log.info({ witnesses: witnesses.map((w) => w.id), log_vkey: logKey.vkey }, 'witnessing checkpoints')

  let running: Promise<void> = Promise.resolve()
  const round = async () => {
    const latest = ledger.store.latestCheckpoint()
    if (!latest || latest.treeSize === 0) return
    const note = addLogSignature(latest.note, ledger.origin, logKey)
    const body = note.slice(0, note.indexOf('\n\n') + 1)
    for (const w of witnesses) {
      const known = state.witnesses[w.id]
      if (known && known.tree_size >= latest.treeSize && !known.error) continue
      let record: WitnessRecord
      try {
        const reply = await addCheckpoint(
          { ...w, url: w.url! },
          { body, note, size: latest.treeSize, proof: (old) => ledger.consistencyProof(old, latest.treeSize) },
          known?.tree_size ?? 0,
        )
        if (reply.kind === 'cosigned') record = { tree_size: latest.treeSize, root: latest.root.toString('base64'), cosignature: reply.line, timestamp: reply.timestamp }
        else {
          const error =
            reply.kind === 'rolled_back'
              ? `ledger_rolled_back: witness cosigned ${reply.witnessSize} leaves, this ledger has ${latest.treeSize}`
              : `${reply.status}: ${reply.reason}`
          record = { ...(known ?? { tree_size: 0, root: '', cosignature: '', timestamp: 0 }), error }
          log.warn({ witness: w.id, error }, 'witness did not cosign')
        }
      } catch (err) {
        record = { ...(known ?? { tree_size: 0, root: '', cosignature: '', timestamp: 0 }), error: `unreachable: ${(err as Error).message}` }
      }
      state = { ...state, witnesses: { ...state.witnesses, [w.id]: record } }
      writeWitnessState(home, state)
    }
  }
  const once = () => (running = running.then(round, round).catch(() => undefined))
  const interval = env.SVC_WITNESS_INTERVAL ? parseDuration(env.SVC_WITNESS_INTERVAL) : 60_000
  const timer = setInterval(() => void once(), interval)
  timer.unref()
  return {
    round: once,
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
