import { describe, expect, it } from 'vitest'
import { ClassificationCache } from './cache.ts'

const result = (rationale: string) => ({ safe: true, categories: {}, rationale })

describe('ClassificationCache', () => {
  it('keys by a hash: no payload text in the key', () => {
    const key = ClassificationCache.key({ provider: 'acme', model: 'acme/m', text: 'cat ~/.aws/credentials', context: [{ field: 'session.signer', value: 'totp' }] })
    expect(key).toMatch(/^[0-9a-f]{64}$/)
    expect(ClassificationCache.key({ provider: 'acme', model: 'acme/m', text: 'cat ~/.aws/credentials', context: [] })).not.toBe(key)
  })

  it('expires entries after their ttl and stores nothing with ttl 0', () => {
    const cache = new ClassificationCache()
    cache.set('a', result('a'), 1000, 0)
    expect(cache.get('a', 999)?.rationale).toBe('a')
    expect(cache.get('a', 1000)).toBeUndefined()
    cache.set('b', result('b'), 0, 0)
    expect(cache.get('b', 0)).toBeUndefined()
  })

  it('is bounded: the least recently used entry goes first', () => {
    const cache = new ClassificationCache(3)
    for (const k of ['a', 'b', 'c']) cache.set(k, result(k), 60_000, 0)
    cache.get('a', 1)
    cache.set('d', result('d'), 60_000, 1)
    expect(cache.size).toBe(3)
    expect(cache.get('b', 2)).toBeUndefined()
    expect(cache.get('a', 2)?.rationale).toBe('a')
  })
})
