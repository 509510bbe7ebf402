/**
 * A deny's allow-once code is keyed by the call's payload hash: the grants plugin asks checkedPayloadHash, which
 * hands back the digest the check already computed for the decision leaf (one canonicalisation and SHA-256 per
 * call, not two), and computes it for anything else: another tool, input or cwd, or once the check is over.
 */
import { describe, expect, it } from 'vitest'
import { checkedPayloadHash, whileChecking } from '../core/engine/read-call.ts'
import { payloadDigest, payloadHash, type ToolCall } from '../core/index.ts'

const call: ToolCall = { sessionId: 'ses_x', source: 'claude-code', tool: 'Bash', input: { command: 'rm -rf ~' }, cwd: '/home/dev/p' }

describe('checkedPayloadHash', () => {
  it('is payloadHash outside a check', () => {
    expect(checkedPayloadHash(call)).toBe(payloadHash(call))
  })

  it("reuses the check's digest for the same payload, and only for it", async () => {
    // A marked digest shows which answers were reused rather than computed.
    const marked = { ...payloadDigest(call), hash: 'reused' }
    await whileChecking(call, marked, async () => {
      expect(checkedPayloadHash({ tool: call.tool, input: call.input, cwd: call.cwd! })).toBe('reused')
      expect(checkedPayloadHash({ tool: call.tool, input: call.input, cwd: '/tmp' })).toBe(payloadHash({ ...call, cwd: '/tmp' }))
      expect(checkedPayloadHash({ tool: 'Read', input: call.input, cwd: call.cwd! })).toBe(payloadHash({ ...call, tool: 'Read' }))
      expect(checkedPayloadHash({ tool: call.tool, input: { ...call.input }, cwd: call.cwd! })).toBe(payloadHash(call))
    })
    expect(checkedPayloadHash(call)).toBe(payloadHash(call))
  })

  it('forgets the digest when the decision throws', async () => {
    await expect(whileChecking(call, { ...payloadDigest(call), hash: 'reused' }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(checkedPayloadHash(call)).toBe(payloadHash(call))
  })
})
