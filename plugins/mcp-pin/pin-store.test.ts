import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
// Entries as the harness kit reads them from configs (a test-only import: the plugin gets them via the harness registry).
import { serversFromJsonMap } from '../../harnesses/kit/mcp-entries.ts'
import { fingerprint, identityOf, runtimeMatches } from './fingerprint.ts'
import { PinAcceptError, PinStore } from './pin-store.ts'

let home: string
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-pins-'))
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

describe('MCP fingerprints', () => {
  it('hash names, never values, and ignore key order and where the server was found', () => {
    const [a] = serversFromJsonMap({ gh: { command: 'npx', args: ['-y', 'gh'], env: { TOKEN: 'one', A: 'x' }, headers: {} } }, 'cursor', '/a')
    const [b] = serversFromJsonMap({ gh: { env: { A: 'y', TOKEN: 'two' }, args: ['-y', 'gh'], command: 'npx' } }, 'gemini', '/b')
    expect(fingerprint(a!)).toBe(fingerprint(b!))
    expect(JSON.stringify(identityOf(a!))).not.toContain('one')
    expect(fingerprint(a!)).toMatch(/^sha256:[0-9a-f]{64}$/)
    const [c] = serversFromJsonMap({ gh: { command: 'npx', args: ['-y', 'gh-evil'], env: { TOKEN: 'one', A: 'x' } } }, 'cursor', '/a')
    expect(fingerprint(c!)).not.toBe(fingerprint(a!))
    expect(fingerprint(a!, [{ name: 't', description: 'd' }])).not.toBe(fingerprint(a!))
  })

  it('checks runtime facts against the configured identity (command alone or the whole line)', () => {
    const id = identityOf({ transport: 'stdio', command: 'npx', args: ['-y', 'gh'] })
    expect(runtimeMatches(id, { command: 'npx', args: ['-y', 'gh'] })).toBe(true)
    expect(runtimeMatches(id, { command: 'npx -y gh' })).toBe(true)
    expect(runtimeMatches(id, { command: 'npx', args: ['-y', 'evil'] })).toBe(false)
    expect(runtimeMatches(id, { url: 'http://127.0.0.1:1/' })).toBe(false)
  })
})

describe('pin store', () => {
  const id = identityOf({ transport: 'stdio', command: 'npx' })
  const other = identityOf({ transport: 'stdio', command: 'npx', args: ['evil'] })
  const third = identityOf({ transport: 'stdio', command: 'npx', args: ['worse'] })
  it('moves unseen → queued → pinned, reports a change as mismatch, and persists atomically', () => {
    const store = new PinStore(home)
    const a = fingerprint(id)
    const b = fingerprint(other)
    expect(store.check('gh', id, 'gemini')).toMatchObject({ state: 'queued', firstSighting: true, fingerprint: a })
    expect(store.check('gh', id, 'gemini')).toMatchObject({ state: 'queued', firstSighting: false })
    expect(store.accept('gh', a)).toMatchObject({ state: 'pinned', pinned: { fingerprint: a } })
    expect(new PinStore(home).check('gh', id, 'gemini')).toMatchObject({ state: 'pinned' })
    expect(store.check('gh', other, 'cursor')).toMatchObject({ state: 'mismatch', pinnedFingerprint: a, fingerprint: b })
    expect(() => store.accept('gh', 'sha256:c')).toThrow(PinAcceptError)
    expect(store.accept('gh', b).pinned?.fingerprint).toBe(b)
    expect(() => store.accept('gh', b)).toThrow(/already pinned and unchanged/)
    expect(() => store.accept('nope', b)).toThrow(/has been seen/)
    expect(JSON.parse(readFileSync(join(home, 'mcp-pins.json'), 'utf8')).servers.gh.state).toBe('pinned')
  })

  it('never lets a sighting without operator rights replace the fingerprint waiting for review', () => {
    const store = new PinStore(home)
    store.check('gh', id, 'gemini')
    expect(store.check('gh', other, 'api')).toMatchObject({ state: 'queued' })
    expect(store.get('gh')).toMatchObject({ pending: { fingerprint: fingerprint(id) }, latest: { fingerprint: fingerprint(other) } })
    store.check('gh', third, 'operator', { operator: true })
    expect(store.get('gh')?.pending?.fingerprint).toBe(fingerprint(third))
    expect(() => store.accept('gh', fingerprint(id))).toThrow(/not the sha256:[0-9a-f]{64} you reviewed/)
  })

  it('compares a caller without the tool list under the tool list that was pinned (one fingerprint function)', () => {
    const store = new PinStore(home)
    const tools = [{ name: 'get_file', description: 'reads a file' }]
    const withTools = store.check('gh', id, 'api', { tools })
    store.accept('gh', withTools.fingerprint)
    expect(store.check('gh', id, 'claude-code')).toMatchObject({ state: 'pinned' })
    expect(store.check('gh', id, 'api', { tools: [{ name: 'get_file', description: 'now exfiltrates' }] })).toMatchObject({ state: 'mismatch' })
    expect(store.check('gh', other, 'claude-code')).toMatchObject({ state: 'mismatch' })
  })
})
