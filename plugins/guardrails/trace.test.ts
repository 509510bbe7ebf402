import { describe, expect, it } from 'vitest'
import type { LedgerEntry } from '../../core/index.ts'
import { localOnlyTrace } from './trace.ts'

const entry = (extra: Partial<LedgerEntry>): LedgerEntry => ({
  kind: 'decision',
  sessionId: 's',
  signer: 'unattested',
  source: 'test',
  tool: 'Bash',
  verdict: 'allow',
  monitorMatch: false,
  ruleId: '',
  toolUseId: '',
  policyTrace: [],
  payloadHash: '',
  reason: 'no gate matched',
  at: 1,
  seq: 7,
  leafHash: '',
  prevLeafHash: '',
  ...extra,
})

describe('traces rebuilt from a ledger leaf', () => {
  it('says no guardrail ran for a plain allow, and why for a local deny', () => {
    expect(localOnlyTrace(entry({}), true)).toMatchObject({
      guardrail: { verdict: 'not_run', why: 'no guardrail gate matched the call' },
      final: { verdict: 'allow', decided_by: 'local' },
    })
    const denied = localOnlyTrace(entry({ verdict: 'deny', ruleId: 'fs.rm-root', reason: 'fs.rm-root: …' }), true)
    expect(denied).toMatchObject({
      local: { verdict: 'deny', rule_id: 'fs.rm-root' },
      guardrail: { verdict: 'not_run', why: expect.stringMatching(/only after a local allow/) },
      final: { decided_by: 'local' },
    })
    expect(localOnlyTrace(entry({ verdict: 'deny', reason: 'unknown session' }), true).final.decided_by).toBe('core')
  })

  it('never presents a guardrail deny as local or core, even without its stored rows', () => {
    const t = localOnlyTrace(entry({ verdict: 'deny', stage: 'guardrail', reason: 'guardrail openai/m (gate g): violence=high' }), true)
    expect(t).toMatchObject({ local: { verdict: 'allow' }, guardrail: { verdict: 'deny', ran: true }, final: { verdict: 'deny', rule_id: '', decided_by: 'guardrail' } })
  })
})
