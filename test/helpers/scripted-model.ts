/**
 * What every scripted model API on loopback shares: an HTTP server on an ephemeral 127.0.0.1 port that reads
 * each request body whole, records `METHOD path`, and hands the body to the vendor's wire-format handler;
 * server-sent events written at once; and the text inside a vendor's nested content blocks.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** `METHOD path` of every request, in order. */
  readonly requests: string[]
  close(): Promise<void>
}

export async function startScriptedServer(handle: (req: IncomingMessage, raw: string, res: ServerResponse) => void): Promise<ScriptedServer> {
  const requests: string[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      requests.push(`${req.method} ${req.url?.split('?')[0]}`)
      handle(req, raw, res)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections()
      server.close()
    },
  }
}

/** Writes `events` as one server-sent-event response (`event:` named by each event's `type`). */
export function sendEvents(res: ServerResponse, events: readonly { readonly type: string; readonly [field: string]: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''))
}

/** The text of a string, a content block (`text`, or nested `content`/`output`), or a list of them. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(textOf).join('\n')
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>
    return typeof v.text === 'string' ? v.text : textOf(v.content ?? v.output ?? '')
  }
  return ''
}
