/**
 * A small loopback HTTP server that speaks whatever wire format a test scripts: it answers each request
 * with a reply chosen by a function of that request (a recorded vendor answer, an HTTP error, a slow,
 * malformed or truncated answer, a dropped connection) and records every request so tests can count them.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type VendorReply =
  /** A JSON answer (status 200 unless given), with extra headers (e.g. a redirect's `location`). */
  | { readonly json: unknown; readonly status?: number; readonly delayMs?: number; readonly headers?: Readonly<Record<string, string>> }
  /** A raw body, e.g. not JSON at all. */
  | { readonly text: string; readonly status?: number; readonly delayMs?: number }
  /** Announces the full length, sends only the first `sendBytes` bytes of `text`, then drops the connection. */
  | { readonly truncated: string; readonly sendBytes: number }
  /** Drops the connection without any answer. */
  | { readonly drop: true }

export interface VendorRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: unknown
}

export interface VendorServer {
  readonly url: string
  /** Every request received, in order. */
  readonly requests: VendorRequest[]
  /** Replaces how the server answers. */
  answer(fn: (request: VendorRequest) => VendorReply): void
  close(): Promise<void>
}

export async function startVendorServer(answer: (request: VendorRequest) => VendorReply): Promise<VendorServer> {
  const requests: VendorRequest[] = []
  let reply = answer
  const timers = new Set<NodeJS.Timeout>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: unknown = raw
      try {
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        // keep the raw text
      }
      const request: VendorRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body }
      requests.push(request)
      const r = reply(request)
      if ('drop' in r) return void req.socket.destroy()
      if ('truncated' in r) {
        const bytes = Buffer.from(r.truncated)
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) })
        res.write(bytes.subarray(0, r.sendBytes))
        return void setImmediate(() => req.socket.destroy())
      }
      const text = 'json' in r ? JSON.stringify(r.json) : r.text
      const send = () => {
        if (res.destroyed) return
        res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...('headers' in r ? r.headers : {}) })
        res.end(text)
      }
      if (!r.delayMs) return send()
      const timer = setTimeout(() => {
        timers.delete(timer)
        send()
      }, r.delayMs)
      timers.add(timer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(fn) {
      reply = fn
    },
    async close() {
      for (const t of timers) clearTimeout(t)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
