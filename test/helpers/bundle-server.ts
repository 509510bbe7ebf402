/**
 * A static bundle origin on 127.0.0.1 (what nginx or an object store does for a policy bundle): serves the
 * current bytes with a strong ETag, answers 304 to a matching If-None-Match, and can cut a download short
 * or go away and come back on the same port.
 */
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface BundleServer {
  readonly url: string
  /** The bytes served from now on. */
  serve(bytes: Buffer): void
  /** Send only the first half of the next responses (Content-Length says the whole), then drop the connection. */
  truncate: boolean
  readonly counts: { ok: number; notModified: number; truncated: number }
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

export async function startBundleServer(initial?: Buffer): Promise<BundleServer> {
  let bytes = initial
  const counts = { ok: 0, notModified: 0, truncated: 0 }
  const state = { truncate: false }
  const etagOf = (b: Buffer) => `"${createHash('sha256').update(b).digest('hex').slice(0, 32)}"`
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    if (req.url !== '/bundles/svc.tar.gz' || !bytes) {
      res.writeHead(404).end()
      return
    }
    const etag = etagOf(bytes)
    if (req.headers['if-none-match'] === etag) {
      counts.notModified++
      res.writeHead(304, { etag }).end()
      return
    }
    if (state.truncate) {
      counts.truncated++
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(bytes.length), etag })
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy())
      return
    }
    counts.ok++
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(bytes.length), etag }).end(bytes)
  }
  let server: Server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections()
      server.close(() => r())
    })
  return {
    url: `http://127.0.0.1:${port}/bundles/svc.tar.gz`,
    serve(b) {
      bytes = b
    },
    get truncate() {
      return state.truncate
    },
    set truncate(v: boolean) {
      state.truncate = v
    },
    counts,
    down: stop,
    async up() {
      server = createServer(handler)
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r))
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  }
}
