/** Hook coverage: a tool run with no decision is an ungated session and a `hook_bypassed` control leaf. */
import { afterEach, describe, expect, it } from 'vitest'
import type { Engine } from '../../core/engine.ts'
import { testEngine } from '../../testing/test-engine.ts'
import { HookCoverage } from './coverage.ts'
import { HookProtocol } from './protocol.ts'

const engines: Engine[] = []
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close()
})

async function protocol(): Promise<{ engine: Engine; protocol: HookProtocol }> {
  const engine = await testEngine('version: 1\nmode: firewall\ngates: []\n')
  engines.push(engine)
  engine.sessions.create({ signer: 'unattested' }, Date.now())
  return { engine, protocol: new HookProtocol(engine) }
}

const call = (id: string, session = 's1') => ({ source: 'test-harness', tool: 'Bash', input: { command: 'true' }, toolUseId: id, cwd: '/p', meta: { harness_session_id: session } })
const rows = (engine: Engine) => Array.from({ length: engine.ledger.size() }, (_, seq) => engine.ledger.get(seq)!)

describe('hook coverage', () => {
  it('counts gated calls, and records a tool that ran without a decision as ungated with a control leaf', async () => {
    const { engine, protocol: p } = await protocol()
    await p.handle({ kind: 'call', call: call('u1') })
    await p.handle({ kind: 'outcome', outcome: 'ran', call: call('u1') })
    expect(rows(engine).map((r) => r.kind)).toEqual(['decision', 'outcome'])
    await p.handle({ kind: 'outcome', outcome: 'ran', call: call('u2') })
    const leaves = rows(engine)
    expect(leaves.map((r) => r.kind)).toEqual(['decision', 'outcome', 'control', 'outcome'])
    expect(leaves[2]).toMatchObject({
      verdict: 'hook_bypassed',
      source: 'svc',
      facts: { harness: 'test-harness', tool: 'Bash', tool_use_id: 'u2', harness_session_id: 's1', cwd: '/p' },
    })
    expect(p.coverage.sessions()).toEqual([expect.objectContaining({ harness: 'test-harness', harness_session_id: 's1', cwd: '/p', gated: 1, ungated: 1 })])
  })

  it('expects no decision for an outcome its harness marks unlinkable', async () => {
    const { engine, protocol: p } = await protocol()
    await p.handle({ kind: 'outcome', outcome: 'ran', call: call('u3'), unlinkable: true })
    expect(rows(engine).map((r) => r.kind)).toEqual(['outcome'])
    expect(p.coverage.sessions()[0]).toMatchObject({ ungated: 0 })
  })

  it('keeps the most recently seen sessions, at most 256', () => {
    const coverage = new HookCoverage()
    for (let i = 0; i < 300; i++) coverage.gated(call(`u${i}`, `s${i}`), 1_000 + i)
    const sessions = coverage.sessions()
    expect(sessions).toHaveLength(256)
    expect(sessions[0]).toMatchObject({ harness_session_id: 's299' })
    expect(sessions.some((s) => s.harness_session_id === 's0')).toBe(false)
  })
})
