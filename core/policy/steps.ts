/**
 * Long synchronous work (compiling a 10,000-gate policy) written once as a generator: `drain` runs it in
 * one go (boot, tests); `runYielding` gives the event loop a turn whenever a time slice is used up, and
 * runs the big pieces a step hands over (a `Job`, e.g. parsing the YAML) off the thread when it can, so
 * the daemon keeps answering checks while a big policy loads.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'

/** A piece of work a step hands to its runner: `run` inline, or `runAsync` off the event loop. */
export interface Job<T = unknown> {
  run(): T
  runAsync?(): Promise<T>
}

/** A computation that yields (nothing, or a job whose result it gets back) where it may be paused. */
export type Steps<T> = Generator<Job | undefined, T, unknown>

/** Runs a job from inside a step and hands back its result (typed). */
export function* runJob<T>(job: Job<T>): Generator<Job | undefined, T, unknown> {
  return (yield job) as T
}

/** Runs every step at once, jobs inline. */
export function drain<T>(steps: Steps<T>): T {
  let input: unknown
  let failure: { error: unknown } | undefined
  for (;;) {
    const r = failure ? steps.throw(failure.error) : steps.next(input)
    failure = undefined
    input = undefined
    if (r.done) return r.value
    if (!r.value) continue
    try {
      input = r.value.run()
    } catch (error) {
      failure = { error }
    }
  }
}

/** Runs the steps, yielding to the event loop after each slice of about `sliceMs`; jobs run off-thread when they can. */
export async function runYielding<T>(steps: Steps<T>, sliceMs = 4): Promise<T> {
  let sliceStart = performance.now()
  let input: unknown
  let failure: { error: unknown } | undefined
  for (;;) {
    const r = failure ? steps.throw(failure.error) : steps.next(input)
    failure = undefined
    input = undefined
    if (r.done) return r.value
    if (r.value) {
      try {
        input = r.value.runAsync ? await r.value.runAsync() : r.value.run()
      } catch (error) {
        failure = { error }
      }
      sliceStart = performance.now()
    } else if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn()
      sliceStart = performance.now()
    }
  }
}
