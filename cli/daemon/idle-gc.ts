/**
 * Gives memory back to the system when the daemon falls quiet. Starting the daemon (compiling every route's
 * schemas, loading the policy) grows V8's young generation to its limit and leaves garbage in the old one,
 * and V8's own memory reducer waits long or not at all while the timers of an idle daemon keep allocating a
 * little: an idle daemon kept ~14 MiB it did not need (bench/check prints RSS idle). A memory-reducing
 * collection (the one V8 runs on a low-memory signal: compacts, shrinks the young generation, returns freed
 * pages) costs 50-150 ms of the main thread, so it runs only when the event loop was quiet for a whole look:
 * once after start, and once after each busy spell, never while checks are coming in.
 */
import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { FastifyBaseLogger } from 'fastify'

/** Looks come every 500 ms until the first collection (the startup's garbage is certain), then every 30 s. */
const FIRST_LOOK_MS = 500
const LOOK_MS = 30_000
/** A look is quiet when the event loop worked less than this share of it (an idle daemon: ~0.1 %). */
const QUIET = 0.01

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

/** V8's memory-reducing collection, through a `gc` taken from a fresh context (Node runs without --expose-gc). */
function memoryReducingGc(): () => void {
  v8.setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as Gc
  // Only that one context gets `gc`: contexts and worker threads made later do not.
  v8.setFlagsFromString('--no-expose-gc')
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

export interface IdleCollection {
  /** What to run (tests count calls); V8's memory-reducing collection by default. */
  readonly collect?: () => void
  /** How often to look (tests look faster). */
  readonly firstLookMs?: number
  readonly lookMs?: number
  /** The share of the last look the event loop was busy: measured by default (tests script it, so they do not depend on load). */
  readonly busyShare?: () => number
}

/** The event loop's utilization since the previous call. */
function measuredBusyShare(): () => number {
  let last = performance.eventLoopUtilization()
  return () => {
    const now = performance.eventLoopUtilization()
    const share = performance.eventLoopUtilization(now, last).utilization
    last = now
    return share
  }
}

/** Collects once after start and after each busy spell, when a whole look was quiet; `stop` ends the looks. */
export function collectWhenIdle(
  log: FastifyBaseLogger,
  { collect = memoryReducingGc(), firstLookMs = FIRST_LOOK_MS, lookMs = LOOK_MS, busyShare = measuredBusyShare() }: IdleCollection = {},
): { stop(): void } {
  let owed = true
  let collected = false
  let timer: NodeJS.Timeout
  const look = () => {
    const busy = busyShare() >= QUIET
    if (busy) owed = true
    else if (owed) {
      owed = false
      collected = true
      const before = process.memoryUsage().heapTotal
      collect()
      log.debug({ heap_total_before: before, heap_total_after: process.memoryUsage().heapTotal }, 'quiet: memory given back')
      busyShare() // the collection itself is not the next look's work
    }
    timer = setTimeout(look, collected ? lookMs : firstLookMs).unref()
  }
  timer = setTimeout(look, firstLookMs).unref()
  return { stop: () => clearTimeout(timer) }
}
