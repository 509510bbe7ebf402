/**
 * The live decision stream (Server-Sent Events). Every ledger append wakes one reader that fetches the new
 * entries once through `GET /v1/ledger/entries` and writes the same frame to every connected page, so ten
 * pages cost one query. A page that reconnects sends `Last-Event-ID` (the last seq it saw) and is first sent
 * what it missed. A page that cannot keep up is disconnected; its reconnect resumes where it stopped.
 */
import type { FastifyInstance } from 'fastify'
import type { ServerResponse } from 'node:http'

interface Entry {
  readonly seq: number
}

interface Client {
  readonly res: ServerResponse
  cursor: number
  live: boolean
}

const PAGE = 500
/** Bytes a slow page may have buffered before it is dropped (it reconnects and resumes). */
const MAX_BUFFERED = 4 * 1024 * 1024
const HEARTBEAT_MS = 15_000

export function frame(entry: Entry): string {
  return `id: ${entry.seq}\nevent: entry\ndata: ${JSON.stringify(entry)}\n\n`
}

export class LiveFeed {
  #api: FastifyInstance | undefined
  readonly #clients = new Set<Client>()
  #broadcast = -1
  #pending = false
  #running: Promise<void> | undefined
  #heartbeat: NodeJS.Timeout | undefined

  attach(api: FastifyInstance): void {
    this.#api = api
    this.#broadcast = api.engine.ledger.size() - 1
  }

  get clients(): number {
    return this.#clients.size
  }

  /** ledgerAppend observer: schedules one read for however many appends arrive meanwhile. */
  appended(_seq: number): void {
    if (!this.#api || this.#clients.size === 0) {
      if (this.#api) this.#broadcast = this.#api.engine.ledger.size() - 1
      return
    }
    this.#pending = true
    this.#running ??= this.#drain().finally(() => (this.#running = undefined))
  }

  async #page(after: number): Promise<Entry[]> {
    const res = await this.#api!.inject({ method: 'GET', url: `/v1/ledger/entries?after=${after}&limit=${PAGE}` })
    if (res.statusCode !== 200) throw new Error(`ledger entries answered ${res.statusCode}`)
    return (JSON.parse(res.body) as { entries: Entry[] }).entries
  }

  async #drain(): Promise<void> {
    while (this.#pending) {
      this.#pending = false
      for (;;) {
        const entries = await this.#page(this.#broadcast)
        if (entries.length === 0) break
        const frames = entries.map((e) => ({ seq: e.seq, text: frame(e) }))
        this.#broadcast = entries.at(-1)!.seq
        for (const client of this.#clients) if (client.live) this.#send(client, frames)
        if (entries.length < PAGE) break
      }
    }
  }

  #send(client: Client, frames: readonly { seq: number; text: string }[]): void {
    const fresh = frames.filter((f) => f.seq > client.cursor)
    if (fresh.length === 0) return
    client.res.write(fresh.map((f) => f.text).join(''))
    client.cursor = fresh.at(-1)!.seq
    if (client.res.writableLength > MAX_BUFFERED) client.res.destroy()
  }

  /** Streams to `res` from after `from` (the last seq the page has; -1 for everything, undefined for new ones only). */
  async stream(res: ServerResponse, from: number | undefined): Promise<void> {
    const client: Client = { res, cursor: from ?? this.#broadcast, live: false }
    this.#clients.add(client)
    res.on('close', () => this.#clients.delete(client))
    res.write(`retry: 1000\n: svc dashboard stream\n\n`)
    // Catch up page by page until the page is as far as the broadcast, then join it (same tick: no gap).
    while (!res.destroyed) {
      if (client.cursor >= this.#broadcast) {
        client.live = true
        break
      }
      const entries = await this.#page(client.cursor)
      if (entries.length === 0) {
        client.live = true
        break
      }
      this.#send(
        client,
        entries.map((e) => ({ seq: e.seq, text: frame(e) })),
      )
    }
    this.#heartbeat ??= setInterval(() => {
      for (const c of this.#clients) c.res.write(': ping\n\n')
    }, HEARTBEAT_MS).unref()
  }

  close(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat)
    this.#heartbeat = undefined
    for (const c of this.#clients) c.res.end()
    this.#clients.clear()
  }
}
