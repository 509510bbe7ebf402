import { describe, expect, it } from 'vitest'
import { homeGlobsFor } from './home-glob-cache.ts'

describe('homeGlobsFor', () => {
  it('refuses a bad pattern when created, before any request', () => {
    expect(() => homeGlobsFor(['~/.ssh/**', '[oops'])).toThrow(/unclosed "\["/)
  })

  it('binds ~ per home and compiles once per distinct roots', () => {
    const lookup = homeGlobsFor(['~/.ssh/**'])
    const alice = lookup({ home: '/home/alice' })
    expect(lookup({ home: '/home/alice' })).toBe(alice)
    expect(alice.test('/home/alice/.ssh/id_rsa')).toBe(true)
    const bob = lookup({ home: '/home/bob' })
    expect(bob).not.toBe(alice)
    expect(bob.test('/home/alice/.ssh/id_rsa')).toBe(false)
    expect(bob.test('/home/bob/.ssh/id_rsa')).toBe(true)
    expect(lookup({ home: '/home/alice', svcHome: '/data' })).not.toBe(alice)
  })
})
