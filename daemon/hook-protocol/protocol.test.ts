/** The hook protocol without HTTP: replay window, duplicate deliveries, outcome links, the serving session. */
import { afterEach, describe, expect, it } from 'vitest'
import type { Engine } from '../../core/engine.ts'
import type { HookInput } from '../../harness-contract/index.ts'
import { testEngine } from '../../testing/test-engine.ts'
import { HookProtocol } from './protocol.ts'
import { REPLAY_MS } from './memory.ts'

const POLICY = `version: 1
mode: firewall
gates:
  - id: test.danger
    description: the Danger tool is refused
    when:
      tool_is: Danger
    on_hit: deny
    nudge: use the Safe tool
`

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function engineWithSession(): Promise<Engine> {
  const engine = await testEngine(POLICY)
  cleanups.push(() => engine.close())
  engine.sessions.create({ signer: 'unattested' }, Date.now())
  return engine
}

const call = (tool: string, toolUseId: string, input: Record<string, unknown> = { x: 1 }) => ({ source: 'test-harness', tool, input, toolUseId })
const pre = (tool: string, id: string, input?: Record<string, unknown>): HookInput & { kind: 'call' } => ({ kind: 'call', call: call(tool, id, input) })
const rows = (engine: Engine) => Array.from({ length: engine.ledger.size() }, (_, seq) => engine.ledger.get(seq)!)
const decisions = (engine: Engine) => rows(engine).filter((e) => e.kind === 'decision')

describe('hook protocol', () => {
  it('decides a pre-tool call under the current session and answers with the gate, reason and nudge', async () => {
    const engine = await engineWithSession()
    const protocol = new HookProtocol(engine)
    expect(await protocol.handle(pre('Danger', 'u1'))).toEqual({
      verdict: 'deny',
      ruleId: 'test.danger',
      reason: 'test.danger: the Danger tool is refused',
      nudge: 'use the Safe tool',
    })
    expect(await protocol.handle(pre('Safe', 'u2'))).toMatchObject({ verdict: 'allow' })
    expect(decisions(engine).map((r) => r.sessionId)).toEqual([engine.sessions.current()!.id, engine.sessions.current()!.id])
  })

  it('answers a duplicate delivery (also concurrent) from the first decision, without a second leaf', async () => {
    const engine = await engineWithSession()
    const protocol = new HookProtocol(engine)
    const [a, b] = await Promise.all([protocol.handle(pre('Danger', 'dup')), protocol.handle(pre('Danger', 'dup'))])
    expect(b).toEqual(a)
    expect(await protocol.handle(pre('Danger', 'dup'))).toEqual(a)
    expect(decisions(engine)).toHaveLength(1)
  })

  it('never replays an allow to other input under the same tool use id, and decides again after the window', async () => {
    const engine = await engineWithSession()
    let offset = 0
    const protocol = new HookProtocol(engine, () => Date.now() + offset)
    await protocol.handle(pre('Safe', 'same', { x: 1 }))
    await protocol.handle(pre('Safe', 'same', { x: 2 }))
    expect(decisions(engine)).toHaveLength(2)
    offset = REPLAY_MS + 1000
    await protocol.handle(pre('Safe', 'same', { x: 2 }))
    expect(decisions(engine)).toHaveLength(3)
  })

  it('replays a recorded answer to a new protocol instance (a restarted daemon) from the ledger', async () => {
    const engine = await engineWithSession()
    await new HookProtocol(engine).handle(pre('Danger', 'restart'))
    const again = await new HookProtocol(engine).handle(pre('Danger', 'restart'))
    // The leaf has no nudge; it comes back from the live policy's gate.
    expect(again).toEqual({ verdict: 'deny', ruleId: 'test.danger', reason: 'test.danger: the Danger tool is refused', nudge: 'use the Safe tool' })
    expect(decisions(engine)).toHaveLength(1)
  })

  it('links an outcome to its decision leaf once, however often it is delivered', async () => {
    const engine = await engineWithSession()
    const protocol = new HookProtocol(engine)
    await protocol.handle(pre('Safe', 'out'))
    const outcome = { kind: 'outcome', outcome: 'ran', call: call('Safe', 'out') } as const
    expect(await protocol.handle(outcome)).toBeUndefined()
    await Promise.all([protocol.handle(outcome), new HookProtocol(engine).handle(outcome)])
    const outcomes = rows(engine).filter((e) => e.kind === 'outcome')
    expect(outcomes).toHaveLength(1)
    expect(outcomes[0]).toMatchObject({ verdict: 'ran', parentSeq: decisions(engine)[0]!.seq, toolUseId: 'out' })
  })

  it('decides derived ids every time (they name the call, not one use of it)', async () => {
    const engine = await engineWithSession()
    const protocol = new HookProtocol(engine)
    const derived = { ...pre('Safe', 'derived'), derivedId: true }
    await protocol.handle(derived)
    await protocol.handle(derived)
    expect(decisions(engine)).toHaveLength(2)
  })
})
