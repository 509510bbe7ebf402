/**
 * The relay's ordering rules with the daemon's answers under the test's control: what waits for a verdict holds
 * only itself, a cancelled waiting request never reaches the server, a held tools/list page is filtered and keeps
 * its cursor, and denials take the shapes clients read. (test/mcp-proxy.e2e.test.ts runs the real process end to end.)
 */
import { describe, expect, it } from 'vitest'
import { SVC_DENIED_CODE } from './answers.ts'
import { Relay } from './relay.ts'

function harness() {
  const toClient: unknown[] = []
  const toServer: unknown[] = []
  const asks: { event: string; body: Record<string, unknown>; answer(a: Record<string, unknown>): void; fail(): void }[] = []
  const relay = new Relay('fx', {
    toClient: (l) => toClient.push(JSON.parse(l)),
    toServer: (l) => toServer.push(JSON.parse(l)),
    ask: (event, body) => new Promise((resolve, reject) => asks.push({ event, body, answer: resolve, fail: () => reject(new Error('daemon down')) })),
    warn: () => undefined,
  })
  const tick = () => new Promise((r) => setImmediate(r))
  return { relay, toClient, toServer, asks, tick }
}

/** Has the client list the tools once (a run's first tools/call is otherwise preceded by the relay's own listing). */
async function listed(h: ReturnType<typeof harness>) {
  h.relay.fromClient(line({ jsonrpc: '2.0', id: 'L', method: 'tools/list' }))
  h.relay.fromServer(line({ jsonrpc: '2.0', id: 'L', result: { tools: [] } }))
  h.asks.shift()!.answer({ tools: [] })
  await h.tick()
  await h.tick()
  h.toClient.length = 0
  h.toServer.length = 0
}

const line = (m: unknown) => JSON.stringify(m)

describe('mcp-proxy relay', () => {
  it('lets other messages pass while a call waits for its verdict', async () => {
    const h = harness()
    await listed(h)
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } }))
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 2, method: 'ping' }))
    h.relay.fromServer(line({ jsonrpc: '2.0', id: 2, result: {} }))
    expect(h.toServer).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }])
    expect(h.toClient).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }])
    h.asks[0]!.answer({ verdict: 'allow', ruleId: '', reason: '' })
    await h.tick()
    expect(h.toServer).toHaveLength(2)
  })

  it('drops a request cancelled while it waits, and passes later cancellations on', async () => {
    const h = harness()
    await listed(h)
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'slow' } }))
    h.relay.fromClient(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } }))
    h.asks[0]!.answer({ verdict: 'allow', ruleId: '', reason: '' })
    await h.tick()
    expect(h.toServer).toEqual([])
    expect(h.toClient).toEqual([])
    h.relay.fromClient(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b' } }))
    expect(h.toServer).toEqual([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b' } }])
  })

  it('denies a tools/call with an isError result and other methods with a non-reserved error code; the daemon down denies', async () => {
    const h = harness()
    await listed(h)
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }))
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'p' } }))
    h.asks[0]!.answer({ verdict: 'deny', ruleId: 'r.1', reason: 'no', nudge: 'ask the user' })
    h.asks[1]!.fail()
    await h.tick()
    expect(h.toClient[0]).toEqual({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [{ type: 'text', text: 'svc denied this request (rule r.1): no\nask the user' }] } })
    expect(h.toClient[1]).toMatchObject({ id: 2, error: { code: SVC_DENIED_CODE } })
    expect(SVC_DENIED_CODE < -32768 || SVC_DENIED_CODE > -32000).toBe(true)
    expect(h.toServer).toEqual([])
  })

  it('holds a tools/list page for its pins, shows only pinned tools and keeps the cursor; later responses pass it', async () => {
    const h = harness()
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: '2' } }))
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 2, method: 'resources/list' }))
    h.relay.fromServer(line({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'a' }, { name: 'b' }], nextCursor: '4' } }))
    h.relay.fromServer(line({ jsonrpc: '2.0', id: 2, result: { resources: [] } }))
    expect(h.asks[0]).toMatchObject({ event: 'tools', body: { first: false, last: false } })
    expect(h.toClient).toEqual([{ jsonrpc: '2.0', id: 2, result: { resources: [] } }])
    h.asks[0]!.answer({
      tools: [
        { name: 'a', state: 'pinned', why: 'pinned' },
        { name: 'b', state: 'mismatch', why: 'changed' },
      ],
    })
    await h.tick()
    expect(h.toClient[1]).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'a' }], nextCursor: '4' } })
  })
  it('lists the tools itself before a run’s first tools/call, keeps that answer from the client, and drops a second answer', async () => {
    const h = harness()
    h.relay.fromClient(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', _meta: { progressToken: 9, 'io.modelcontextprotocol/protocolVersion': 'v' } } }))
    const own = h.toServer[0] as { id: string; method: string; params: unknown }
    expect(own).toMatchObject({ method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 'v' } } })
    expect(JSON.stringify(own.params)).not.toContain('progressToken')
    h.relay.fromServer(line({ jsonrpc: '2.0', id: own.id, result: { tools: [{ name: 'a' }] } }))
    h.relay.fromServer(line({ jsonrpc: '2.0', id: own.id, result: { tools: [{ name: 'evil' }] } }))
    await h.tick()
    expect(h.asks[0]).toMatchObject({ event: 'tools', body: { first: true, last: true, tools: [{ name: 'a' }] } })
    h.asks[0]!.answer({ tools: [{ name: 'a', state: 'pinned', why: 'pinned' }] })
    await h.tick()
    await h.tick()
    expect(h.asks[1]).toMatchObject({ event: 'call' })
    expect(h.toClient).toEqual([])
    h.asks[1]!.answer({ verdict: 'allow', ruleId: '', reason: '' })
    await h.tick()
    expect(h.toServer[1]).toMatchObject({ id: 1, method: 'tools/call' })
    h.relay.fromServer(line({ jsonrpc: '2.0', id: 1, result: { content: [] } }))
    h.relay.fromServer(line({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'second' }] } }))
    expect(h.toClient).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [] } }])
  })
})
