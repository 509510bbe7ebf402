/**
 * The relay's record of unverdicted messages: gated requests are left to the ledger, contents are never kept,
 * a failed post counts its entries as dropped and reports them with the next batch, a full queue counts drops.
 */
import { describe, expect, it } from 'vitest'
import { Relay } from './relay.ts'
import { TRAFFIC_QUEUE_MAX, TrafficLog, trafficEntry, type TrafficEntry } from './traffic-log.ts'

describe('mcp-proxy traffic log', () => {
  it('records every relayed message but gated requests, without contents', () => {
    const recorded: TrafficEntry[] = []
    const relay = new Relay('fx', {
      toClient: () => undefined,
      toServer: () => undefined,
      ask: () => new Promise(() => undefined),
      warn: () => undefined,
      record: (from, line, m) => recorded.push(trafficEntry(from, line, m)),
    })
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })
    const error = JSON.stringify({ jsonrpc: '2.0', id: 2, error: { code: -1, message: 'secret-answer' } })
    relay.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'secret-arg' } }))
    relay.fromClient(list)
    relay.fromClient(initialized)
    relay.fromServer(error)
    relay.fromClient('not json')
    expect(recorded.map(({ at: _, ...e }) => e)).toEqual([
      { from: 'client', kind: 'request', method: 'tools/list', id: '2', bytes: list.length },
      { from: 'client', kind: 'notification', method: 'notifications/initialized', bytes: initialized.length },
      { from: 'server', kind: 'error', id: '2', bytes: error.length },
      { from: 'client', kind: 'other', bytes: 8 },
    ])
    expect(JSON.stringify(recorded)).not.toContain('secret')
  })

  it('counts what it could not post or queue, says so once, and reports the count with the next batch', async () => {
    const posts: { entries: TrafficEntry[]; dropped: number }[] = []
    const warnings: string[] = []
    let up = false
    const log = new TrafficLog({ post: async (b) => (up ? posts.push(b) : Promise.reject(new Error('daemon down'))), warn: (m) => warnings.push(m) }, 60_000)
    const entry = trafficEntry('client', '{}', {})
    for (let i = 0; i < TRAFFIC_QUEUE_MAX + 3; i++) log.add(entry)
    expect(log.pending).toEqual({ queued: TRAFFIC_QUEUE_MAX, dropped: 3 })
    await log.flush()
    await log.flush()
    expect(warnings).toHaveLength(1)
    expect(log.pending).toEqual({ queued: 0, dropped: TRAFFIC_QUEUE_MAX + 3 })
    up = true
    log.add(entry)
    await log.flush()
    expect(posts).toEqual([{ entries: [entry], dropped: TRAFFIC_QUEUE_MAX + 3 }])
    expect(log.pending).toEqual({ queued: 0, dropped: 0 })
  })
})
