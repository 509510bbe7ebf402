import { describe, expect, it } from 'vitest'
import { payloadHash, type LedgerEntry } from '../../core/index.ts'
import { ProxyLinker } from './proxy-link.ts'

const tool = 'mcp__fs__read'
const input = { path: '/tmp/a' }
const entry = (seq: number, over: Partial<LedgerEntry> = {}): LedgerEntry =>
  ({ kind: 'decision', seq, source: 'claude-code', tool, verdict: 'allow', payloadHash: payloadHash({ tool, input, cwd: '/w' }), at: 1_000, ...over }) as LedgerEntry

describe('ProxyLinker', () => {
  it('links a proxy call to the newest allowed hook decision of the same call, once', () => {
    const linker = new ProxyLinker()
    linker.observe(entry(1))
    linker.observe(entry(2))
    expect(linker.find(tool, input, '/w', 2_000)).toBe(2)
    expect(linker.find(tool, input, '/w', 2_000)).toBe(1)
    expect(linker.find(tool, input, '/w', 2_000)).toBeUndefined()
  })

  it('never links a deny, a proxy decision, another payload or a decision older than the window', () => {
    const linker = new ProxyLinker()
    linker.observe(entry(1, { verdict: 'deny' }))
    linker.observe(entry(2, { source: 'mcp-proxy' }))
    linker.observe(entry(3, { payloadHash: payloadHash({ tool, input: { path: '/tmp/b' }, cwd: '/w' }) }))
    linker.observe(entry(4, { kind: 'outcome' }))
    expect(linker.find(tool, input, '/w', 2_000)).toBeUndefined()
    linker.observe(entry(5))
    expect(linker.find(tool, input, '/w', 1_000 + 121_000)).toBeUndefined()
  })

  it('keeps a bounded window however long the daemon runs', () => {
    const linker = new ProxyLinker()
    for (let seq = 0; seq < 10_000; seq++) linker.observe(entry(seq))
    expect(linker.find(tool, input, '/w', 2_000)).toBe(9_999)
    let found = 0
    while (linker.find(tool, input, '/w', 2_000) !== undefined) found++
    expect(found).toBeLessThan(300)
  })
})
