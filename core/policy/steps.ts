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

/** What a job gave back to the step that handed it over: its result, or what it threw. */
type Outcome = { readonly value: unknown } | { readonly error: unknown }
const NOTHING: Outcome = { value: undefined }

const advance = <T>(steps: Steps<T>, o: Outcome) => ('error' in o ? steps.throw(o.error) : steps.next(o.value))

function settle(run: () => unknown): Outcome {
  try {
    return { value: run() }
  } catch (error) {
    return { error }
  }
}

/** Runs every step at once, jobs inline. */
export function drain<T>(steps: Steps<T>): T {
  for (let o = NOTHING; ; ) {
    const r = advance(steps, o)
    if (r.done) return r.value
    const job = r.value
    o = job ? settle(() => job.run()) : NOTHING
  }
}

/** Runs the steps, yielding to the event loop after each slice of about `sliceMs`; jobs run off-thread when they can. */
export async function runYielding<T>(steps: Steps<T>, sliceMs = 4): Promise<T> {
  let sliceStart = performance.now()
  for (let o = NOTHING; ; ) {
    const r = advance(steps, o)
    if (r.done) return r.value
    const job = r.value
    o = NOTHING
    if (job) {
      o = job.runAsync
        ? await job.runAsync().then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          )
        : settle(() => job.run())
      sliceStart = performance.now()
    } else if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn()
      sliceStart = performance.now()
    }
  }
}
