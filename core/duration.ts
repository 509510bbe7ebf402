/**
 * Compound integer durations (`30m`, `4h`, `7d`, `1h30m`, `90s`, `250ms`) for `--ttl`, `cache_ttl` and
 * `max_latency`. Units appear largest first, each at most once; anything else is a clear error.
 */

const UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
] as const

const PART = /(\d+)(ms|d|h|m|s)/y

/** Parses a duration into milliseconds; throws a RangeError naming the input and the accepted forms. */
export function parseDuration(text: string): number {
  const bad = (why: string) =>
    new RangeError(`invalid duration "${text}": ${why} (use integer counts with units d, h, m, s, ms, largest first, e.g. 30m, 4h, 7d, 1h30m, 90s, 250ms)`)
  if (typeof text !== 'string' || text.length === 0) throw bad('empty')
  let total = 0
  let lastRank = -1
  PART.lastIndex = 0
  while (PART.lastIndex < text.length) {
    const start = PART.lastIndex
    const m = PART.exec(text)
    if (!m) throw bad(`unexpected "${text.slice(start)}"`)
    const rank = UNITS.findIndex(([unit]) => unit === m[2])
    if (rank <= lastRank) throw bad(`unit "${m[2]}" is repeated or out of order`)
    lastRank = rank
    total += Number(m[1]) * UNITS[rank]![1]
  }
  if (!Number.isSafeInteger(total)) throw bad('too large')
  return total
}
