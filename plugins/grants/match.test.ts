import { describe, expect, it } from 'vitest'
import { waive } from '../../core/decision.ts'
import { combine } from '../../core/index.ts'
import type { GateHit } from '../../core/types.ts'
import { grantsFor } from './match.ts'
import type { GrantRow } from './store.ts'

const hit = (gateId: string, onHit: GateHit['onHit'] = 'deny', requireStrong = false): GateHit => ({
  gateId,
  layer: 'daemon',
  source: 'daemon',
  onHit,
  requireStrong,
  reason: gateId,
})
const row = (over: Partial<GrantRow>): GrantRow => ({
  id: 'g_1',
  kind: 'call',
  code: 'K7QF3D',
  payload_hash: 'h1',
  cwd: '/p',
  gates: ['a'],
  project: null,
  once: true,
  uses: 0,
  created_ms: 0,
  expires_ms: 1,
  granted_seq: null,
  who: 'host-key:x',
  ...over,
})

describe('which grants let a denied call through', () => {
  it('a call grant only for its payload, a rule grant only in its project, each only over its gates, and only when every denying gate is covered', () => {
    const call = row({})
    const rule = row({ id: 'g_2', kind: 'rule', code: null, payload_hash: null, project: '/work/app', gates: ['b'] })
    expect(grantsFor({ payloadHash: 'h1', cwd: '/p' }, ['a'], [call])).toEqual([call])
    expect(grantsFor({ payloadHash: 'h2', cwd: '/p' }, ['a'], [call])).toBeUndefined()
    expect(grantsFor({ payloadHash: 'h1', cwd: '/p' }, ['a', 'c'], [call])).toBeUndefined()
    expect(grantsFor({ payloadHash: 'x', cwd: '/work/app/src' }, ['b'], [rule])).toEqual([rule])
    expect(grantsFor({ payloadHash: 'x', cwd: '/work/application' }, ['b'], [rule])).toBeUndefined()
    expect(grantsFor({ payloadHash: 'x' }, ['b'], [rule])).toBeUndefined()
    // A rule covering the call leaves the once-grant for its own call.
    const both = row({ id: 'g_3', kind: 'rule', code: null, payload_hash: null, project: '/p', gates: ['a'] })
    expect(grantsFor({ payloadHash: 'h1', cwd: '/p' }, ['a'], [call, both])).toEqual([both])
  })
})

describe('the kernel waives only what a grant names', () => {
  it('drops the plain deny hits of its gates; another gate, a require_strong hit or a refused loosening still deny', () => {
    const local = combine([hit('a'), hit('b', 'monitor')], 'firewall', 'software')
    const granted = waive(local, { ...local, grant: { id: 'g_1', gates: ['a'] } }, 'firewall', 'software')
    expect(granted).toMatchObject({ verdict: 'allow', ledgerVerdict: 'monitor_alert', ruleId: 'b', grant: { id: 'g_1' } })
    expect(granted.reason).toMatch(/^allowed by the user's grant g_1 over a; then monitored/)
    const other = combine([hit('a'), hit('c')], 'firewall', 'software')
    expect(waive(other, { ...other, grant: { id: 'g_1', gates: ['a'] } }, 'firewall', 'software')).toMatchObject({ verdict: 'deny', ruleId: 'c' })
    const strong = combine([hit('a', 'deny', true)], 'firewall', 'software')
    expect(waive(strong, { ...strong, grant: { id: 'g_1', gates: ['a'] } }, 'firewall', 'software').verdict).toBe('deny')
    expect(() => waive(local, { ...local, verdict: 'allow' }, 'firewall', 'software')).toThrow(/turned a deny/)
  })
})
