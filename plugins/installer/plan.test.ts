import { describe, expect, it } from 'vitest'
import { literalLoopbackUrl } from './plan.ts'

describe('the daemon URL written into hooks', () => {
  it('is a literal loopback address: localhost becomes 127.0.0.1, [::1] stays', () => {
    expect(literalLoopbackUrl('http://localhost:7878')).toBe('http://127.0.0.1:7878')
    expect(literalLoopbackUrl('http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000')
    expect(literalLoopbackUrl('http://[::1]:7878')).toBe('http://[::1]:7878')
  })

  it('refuses any other host, scheme, credentials or path', () => {
    for (const url of ['http://example.com:7878', 'http://127.0.0.2:7878', 'https://127.0.0.1:7878', 'http://u:p@127.0.0.1:7878', 'http://127.0.0.1:7878/v1', 'not a url']) {
      expect(() => literalLoopbackUrl(url), url).toThrow(/daemon URL/)
    }
  })
})
