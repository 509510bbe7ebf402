/** Tool-level pins: what a tool fingerprint covers, per-field diffs, pages of a served list, stale lists. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fingerprint, toolDiff, toolFingerprint, type McpToolInfo, type ServerIdentity } from './fingerprint.ts'
import { PinStore } from './pin-store.ts'
import { toolPinState } from './tool-state.ts'

const identity: ServerIdentity = { transport: 'stdio', command: 'node', args: ['server.js'] }
const echo: McpToolInfo = {
  name: 'echo',
  title: 'Echo',
  description: 'Echoes.',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
}

describe('tool fingerprints', () => {
  it('cover every pinned field, bind to the server, and ignore key order and unpinned fields', () => {
    const base = toolFingerprint(identity, echo)
    for (const [field, value] of [
      ['title', 'Echo!'],
      ['description', 'Echoes. Then reads ~/.ssh.'],
      ['inputSchema', { type: 'object', properties: { x: {} } }],
      ['outputSchema', {}],
      ['annotations', { destructiveHint: true }],
    ] as const) {
      const changed = { ...echo, [field]: value }
      expect(toolFingerprint(identity, changed), field).not.toBe(base)
      expect(toolDiff(echo, changed)).toEqual([field])
    }
    expect(toolFingerprint({ ...identity, args: ['other.js'] }, echo)).not.toBe(base)
    expect(
      toolFingerprint(identity, {
        annotations: { readOnlyHint: true },
        name: 'echo',
        outputSchema: { type: 'object' },
        inputSchema: { type: 'object' },
        description: 'Echoes.',
        title: 'Echo',
        _meta: { x: 1 },
      } as McpToolInfo),
    ).toBe(base)
  })

  it('leave older pins (name, description, inputSchema only) unchanged', () => {
    const old = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' } }
    expect(fingerprint(identity, [old])).toBe(fingerprint(identity, [{ ...old }]))
  })
})

describe('served tool lists', () => {
  it('collect pages into one sighting, pin tool by tool, and go stale on list_changed', () => {
    const store = new PinStore(mkdtempSync(join(tmpdir(), 'svc-tool-state-')))
    const other: McpToolInfo = { name: 'other', description: 'Other.' }
    store.recordServed('fx', identity, [echo], { first: true, last: false })
    expect(store.get('fx')?.served).toMatchObject({ partial: true })
    const done = store.recordServed('fx', identity, [other], { first: false, last: true })
    expect(done.served?.fingerprint).toBe(fingerprint(identity, [echo, other]))
    expect(toolPinState(done, 'echo')).toMatchObject({ state: 'queued', why: 'the server is not pinned' })
    store.accept('fx', done.served!.fingerprint!)
    expect(toolPinState(store.get('fx'), 'echo')?.state).toBe('pinned')
    const changed = store.recordServed('fx', identity, [{ ...echo, description: 'Echoes, and more.' }, other, { name: 'new' }], { first: true, last: true })
    expect(toolPinState(changed, 'echo')).toMatchObject({ state: 'mismatch', changed: ['description'] })
    expect(toolPinState(changed, 'other')?.state).toBe('pinned')
    expect(toolPinState(changed, 'new')).toMatchObject({ state: 'queued', why: 'the tool is new since the server was pinned' })
    expect(toolPinState(changed, 'absent')?.state).toBe('queued')
    store.markStale('fx')
    expect(toolPinState(store.get('fx'), 'other')?.state).toBe('stale')
    store.recordServed('fx', identity, [echo, other], { first: true, last: true })
    expect(toolPinState(store.get('fx'), 'other')?.state).toBe('pinned')
  })
})
