/**
 * The data of `svc top`, read from the daemon's HTTP API with the same client code as every other command:
 * the decision stream follows the ledger with `followLedger` (as `svc log --follow` and `svc tail` do), the
 * other views poll their endpoint while they are shown. A failed read is kept as an error to show, never thrown.
 */
import { useEffect, useState } from 'react'
import { callDaemon } from '../http.ts'
import type { LedgerFilter } from '../ledger-filter.ts'
import { followLedger, newestEntries, type LedgerRecord } from '../ledger-stream.ts'

/** How many decisions the live view keeps (newest first). */
export const KEEP = 500

export interface Polled<T> {
  readonly data?: T
  readonly error?: string
}

/** `fetch()` now and every `intervalMs` while mounted (and while `enabled`); the latest answer or error. */
export function usePoll<T>(fetch: () => Promise<T>, intervalMs: number, deps: readonly unknown[], enabled = true): Polled<T> {
  const [state, setState] = useState<Polled<T>>({})
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps (and enabled) restart the poll; fetch is a new closure on every render
  useEffect(() => {
    if (!enabled) return
    let live = true
    let timer: NodeJS.Timeout | undefined
    const tick = async () => {
      try {
        const data = await fetch()
        if (live) setState({ data })
      } catch (err) {
        if (live) setState((s) => ({ data: s.data, error: (err as Error).message }))
      }
      if (live) timer = setTimeout(tick, intervalMs)
    }
    void tick()
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [...deps, enabled])
  return state
}

export interface DecisionStream {
  readonly records: readonly LedgerRecord[]
  readonly error?: string
  /** The daemon answered at least once. */
  readonly loaded: boolean
}

/** The newest decisions matching `filter`, then every new one as it is recorded; restarts when the filter changes. */
export function useDecisions(url: string, filter: LedgerFilter, intervalMs: number): DecisionStream {
  const [stream, setStream] = useState<DecisionStream>({ records: [], loaded: false })
  const key = JSON.stringify(filter)
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the filter's JSON (key): the filter is a new object on every render
  useEffect(() => {
    const controller = new AbortController()
    const run = async () => {
      let after = -1
      let first = true
      while (!controller.signal.aborted) {
        try {
          if (first) {
            const { records, treeSize } = await newestEntries(url, filter, 200)
            after = treeSize - 1
            first = false
            setStream({ records, loaded: true })
          }
          for await (const batch of followLedger(url, filter, after, { intervalMs, signal: controller.signal })) {
            after = batch.at(-1)!.entry.seq
            setStream((s) => ({ records: [...batch.reverse(), ...s.records].slice(0, KEEP), loaded: true }))
          }
        } catch (err) {
          // The daemon went away (restart, crash): say so, and resume from the last seq when it is back.
          setStream((s) => ({ ...s, error: (err as Error).message }))
          first = true
          await new Promise((r) => setTimeout(r, intervalMs))
        }
      }
    }
    void run()
    return () => controller.abort()
  }, [url, key, intervalMs])
  return stream
}

/** GET `path` as JSON (the views' one way to read). */
export const get =
  <T>(url: string, path: string) =>
  () =>
    callDaemon<T>(url, path, { timeoutMs: 5000 })
