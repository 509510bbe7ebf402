/**
 * How many live streams (`GET /events`) the dashboard holds open: a few per login (a page in a few tabs) and a
 * bounded total, so neither one login nor many can make the daemon hold connections and buffers without end.
 * One stream too many is a 429 naming the cap; the page (web/stream.js) retries every second until one closes.
 */
import { ApiProblem } from '../../core/index.ts'

export const STREAMS_PER_LOGIN = 4
export const STREAMS_TOTAL = 16

export class StreamCaps {
  readonly #open = new Map<string, number>()
  #total = 0

  /** Counts one more stream of `login`; throws 429 past a cap; answers the function that releases it (once). */
  admit(login: string): () => void {
    const mine = this.#open.get(login) ?? 0
    if (mine >= STREAMS_PER_LOGIN) throw new ApiProblem(429, 'too_many_requests', `this login has ${STREAMS_PER_LOGIN} live streams open already; close a dashboard tab`)
    if (this.#total >= STREAMS_TOTAL) throw new ApiProblem(429, 'too_many_requests', `the dashboard serves at most ${STREAMS_TOTAL} live streams at once`)
    this.#open.set(login, mine + 1)
    this.#total++
    let released = false
    return () => {
      if (released) return
      released = true
      this.#total--
      const left = (this.#open.get(login) ?? 1) - 1
      if (left > 0) this.#open.set(login, left)
      else this.#open.delete(login)
    }
  }
}
