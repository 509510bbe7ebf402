/** A call is read once: one pass over its input for Unicode and canonical bytes, hook delivery or gate check. */
import { afterEach, describe, expect, it } from 'vitest'
import type { Engine } from '../../core/engine.ts'
import { payloadDigest, payloadHash } from '../../core/hash.ts'
import { HookProtocol } from './protocol.ts'
import { testEngine } from '../../testing/test-engine.ts'
import type { ToolCall } from '../../core/types.ts'
import { illFormedAt } from '../../core/well-formed.ts'
import { payloadDigestOf, unreadableCall, withPayloadDigest } from '../../core/engine/read-call.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function engineWithSession(): Promise<Engine> {
  const engine = await testEngine('version: 1\nmode: firewall\ngates: []\n')
  cleanups.push(() => engine.close())
  engine.sessions.create({ signer: 'unattested' }, Date.now())
  return engine
}

/** An input whose `command` counts how often it is read: once per pass over the input. */
function countedInput(command: string, extra: Record<string, unknown> = {}): { input: Record<string, unknown>; reads: () => number } {
  let reads = 0
  const input = { ...extra }
  Object.defineProperty(input, 'command', {
    enumerable: true,
    get: () => {
      reads++
      return command
    },
  })
  return { input, reads: () => reads }
}

describe('reading a call', () => {
  it('passes over the input once for a gate check, and once for a hook delivery with a tool use id', async () => {
    const engine = await engineWithSession()
    const checked = countedInput('ls')
    const result = await engine.check({ sessionId: engine.sessions.current()!.id, source: 'test-harness', tool: 'Bash', input: checked.input, toolUseId: 't1' })
    expect(checked.reads()).toBe(1)
    expect(engine.ledger.get(result.ledger_seq)!.payloadHash).toBe(payloadHash({ tool: 'Bash', input: { command: 'ls' } }))

    const hooked = countedInput('ls -la', { description: 'list' })
    await new HookProtocol(engine).handle({ kind: 'call', call: { source: 'test-harness', tool: 'Bash', input: hooked.input, toolUseId: 't2' } })
    expect(hooked.reads()).toBe(1)
    expect(engine.ledger.get(engine.ledger.size() - 1)!.payloadHash).toBe(payloadHash({ tool: 'Bash', input: { command: 'ls -la', description: 'list' } }))
  })

  it('names the same field a walk of the whole call names, wherever the lone surrogates are', () => {
    const bad = '\ud800'
    const fields = {
      sessionId: ['s', bad],
      source: ['h', bad],
      tool: ['Bash', bad],
      cwd: [undefined, '/w', bad],
      toolUseId: [undefined, 'u', bad],
      input: [{ command: 'ls' }, { command: bad }, { [bad]: 1 }, { a: [1, { b: bad }] }],
      meta: [undefined, { m: 'x' }, { m: bad }],
    }
    let calls: Record<string, unknown>[] = [{}]
    for (const [name, values] of Object.entries(fields)) calls = calls.flatMap((c) => values.map((v) => (v === undefined ? c : { ...c, [name]: v })))
    for (const call of calls as unknown as ToolCall[]) {
      const { sessionId, source, tool, cwd, toolUseId, input, meta } = call
      const at = illFormedAt({ session_id: sessionId, source, tool, cwd, tool_use_id: toolUseId, input, meta }, 'call')
      const reason = unreadableCall(call, payloadDigest(call))
      expect(reason === undefined ? undefined : /field "([^"]*)"/.exec(reason)![1]).toBe(at?.slice('call.'.length))
    }
  })

  it('uses a handed digest once, and only for the call object and payload it was made for', () => {
    const call: ToolCall = { sessionId: 's', source: 'h', tool: 'Bash', input: { command: 'ls' } }
    const handed = { ...payloadDigest(call) }
    expect(payloadDigestOf(withPayloadDigest(call, handed))).toBe(handed)
    expect(payloadDigestOf(call)).not.toBe(handed)
    withPayloadDigest(call, handed)
    expect(payloadDigestOf({ ...call })).not.toBe(handed)
    const changed = withPayloadDigest({ ...call }, handed) as { input: Record<string, unknown> }
    changed.input = { command: 'rm' }
    expect(payloadDigestOf(changed as unknown as ToolCall)).toEqual(payloadDigest({ ...call, input: { command: 'rm' } }))
  })
})
