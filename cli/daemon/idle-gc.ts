/**
 * Gives memory back to the system when the daemon falls quiet. Starting the daemon (compiling every route's
 * schemas, loading the policy) grows V8's young generation to its limit and leaves garbage in the old one,
 * and V8's own memory reducer does not run while the timers of an idle daemon keep allocating a little: an
 * idle daemon kept ~14 MiB it did not need (bench/check prints RSS idle). A memory-reducing collection (the
 * one V8 runs on a low-memory signal: compacts, shrinks the young generation, returns freed pages) costs
 * 50-150 ms of the main thread, so it runs only when the event loop was quiet for a whole look: once after
 * start, and once after each busy spell, never while checks are coming in.
 */
import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'

/** Looks come every 500 ms until the first collection (the startup's garbage is certain), then every 30 s. */
const FIRST_LOOK_MS = 500
const LOOK_MS = 30_000
/** A look is quiet when the event loop worked less than this share of it (an idle daemon: ~0.1 %). */
const QUIET = 0.01

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

/** V8's `gc` function, taken from a fresh context (Node starts without --expose-gc, so no global `gc` exists). */
function memoryReducingGc(): () => void {
  v8.setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as Collect
  // Only that one context gets `gc`: contexts and worker threads made later do not.
  v8.setFlagsFromString('--no-expose-gc')
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

/** Collects once after start and after each busy spell, when a whole look was quiet; `stop` ends the looks. */
export function collectWhenIdle(collect: () => void = memoryReducingGc()): { stop(): void } {
  let owed = true
  let started = false
  let last = performance.eventLoopUtilization()
  let timer: NodeJS.Timeout
  const look = () => {
    const now = performance.eventLoopUtilization()
    const busy = performance.eventLoopUtilization(now, last).utilization >= QUIET
    if (busy) owed = true
    else if (owed) {
      owed = false
      started = true
      collect()
    }
    last = performance.eventLoopUtilization()
    timer = setTimeout(look, started ? LOOK_MS : FIRST_LOOK_MS).unref()
  }
  timer = setTimeout(look, FIRST_LOOK_MS).unref()
  return { stop: () => clearTimeout(timer) }
}
