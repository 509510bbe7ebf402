import { describe, expect, it } from 'vitest'
import { parseDuration } from './duration.ts'

describe('parseDuration', () => {
  it.each([
    ['30m', 1_800_000],
    ['4h', 14_400_000],
    ['7d', 604_800_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['250ms', 250],
    ['1d2h3m4s5ms', 93_784_005],
    ['0s', 0],
  ])('%s = %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms))

  it.each(['', '10', 'm', '1.5h', '-1h', '1h 30m', '30m1h', '1h1h', '1w', '1H', ' 1h', '1h ', '9999999999999999d'])('rejects "%s"', (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration/)
  })
})
