/**
 * Bounded unpacking and fetching with real parts: a real gzip bomb (a tar header naming a 4 GiB file, then 256
 * gzip members of 16 MiB of zeros each: 4 MB on the wire) is refused while it decompresses, fast and without
 * stalling the event loop; a real redirect from one local HTTP server to a second one (another origin) does not
 * carry the managed file's headers there, while a same-origin redirect keeps them.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packBundle, unpackBundle } from './archive.ts'
import { fetchBundle } from './fetch-bundle.ts'

function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512)
  h.write(name, 0)
  h.write('0000644\0', 100)
  h.write('0000000\0', 108)
  h.write('0000000\0', 116)
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124)
  h.write('00000000000\0', 136)
  h.write('        ', 148)
  h.write('0', 156)
  h.write('ustar\0', 257)
  h.write('00', 263)
  let sum = 0
  for (const b of h) sum += b
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  return h
}

describe('a gzip bomb bundle', () => {
  it('is refused while it decompresses: quickly, with the event loop free meanwhile', async () => {
    const zeros = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 })
    const bomb = Buffer.concat([gzipSync(tarHeader('svc/daemon/policy.yaml', 4 * 1024 ** 3)), ...Array.from({ length: 256 }, () => zeros)])
    expect(bomb.length).toBeLessThan(8 * 1024 * 1024)
    let last = performance.now()
    let worst = 0
    const tick = setInterval(() => {
      const now = performance.now()
      worst = Math.max(worst, now - last)
      last = now
    }, 10)
    const t0 = performance.now()
    try {
      await expect(unpackBundle(bomb)).rejects.toThrow(/unpacks to more than \d+ bytes/)
    } finally {
      clearInterval(tick)
    }
    expect(performance.now() - t0).toBeLessThan(3000)
    expect(worst).toBeLessThan(750)
  })

  it('still unpacks an honest bundle', async () => {
    const files = await unpackBundle(packBundle(new Map([['svc/daemon/policy.yaml', Buffer.from('gates: []\n')]])))
    expect(files.get('svc/daemon/policy.yaml')?.toString()).toBe('gates: []\n')
  })
})

describe('a redirected bundle download', () => {
  const seen: { server: string; headers: IncomingHttpHeaders }[] = []
  let first: Server
  let second: Server
  let firstUrl: string
  let secondUrl: string
  const listen = async (s: Server) => {
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
    return `http://127.0.0.1:${(s.address() as { port: number }).port}`
  }
  beforeAll(async () => {
    second = createServer((req, res) => {
      seen.push({ server: 'second', headers: req.headers })
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(Buffer.from('bundle bytes'))
    })
    secondUrl = await listen(second)
    first = createServer((req, res) => {
      seen.push({ server: 'first', headers: req.headers })
      if (req.url === '/same') return res.writeHead(302, { location: '/bundle' }).end()
      if (req.url === '/bundle') return res.writeHead(200).end(Buffer.from('same origin bytes'))
      res.writeHead(302, { location: `${secondUrl}/elsewhere.tar.gz` }).end()
    })
    firstUrl = await listen(first)
  })
  afterAll(() => {
    first?.close()
    second?.close()
  })

  const settings = (url: string) => ({ url, roots: [], minDelayMs: 1000, maxDelayMs: 1000, timeoutMs: 5000, headers: { 'x-api-key': 'sekrit', authorization: 'Bearer sekrit' } })

  it('does not send the managed headers to another origin a redirect names', async () => {
    seen.length = 0
    const out = await fetchBundle(settings(`${firstUrl}/bundle.tar.gz`) as never, undefined)
    expect(out).toMatchObject({ kind: 'body' })
    expect(seen.map((s) => s.server)).toEqual(['first', 'second'])
    expect(seen[0]!.headers['x-api-key']).toBe('sekrit')
    expect(seen[1]!.headers['x-api-key']).toBeUndefined()
    expect(seen[1]!.headers.authorization).toBeUndefined()
  })

  it('keeps them on a redirect within the same origin', async () => {
    seen.length = 0
    const out = await fetchBundle(settings(`${firstUrl}/same`) as never, undefined)
    expect(out).toMatchObject({ kind: 'body' })
    expect(seen.map((s) => s.headers['x-api-key'])).toEqual(['sekrit', 'sekrit'])
  })
})
