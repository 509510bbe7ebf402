import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { callPayloadBytes, sha256 } from '../../core/index.ts'
import { tempDir } from '../../test/helpers/temp.ts'
import { PayloadStore, retentionFrom, verifyPayloads } from './payload-store.ts'

const call = (command: string) => callPayloadBytes({ tool: 'Bash', input: { command } })

describe('payload store retention', () => {
  it('keeps calls by age and total size, and reads retention from the environment', () => {
    const now = Date.now()
    const store = new PayloadStore(join(tempDir(), 'payloads.db'), { maxAgeMs: 60_000, maxBytes: 200, maxPayloadBytes: 150 })
    expect(store.put(0, sha256(call('ls')), call('ls'), now - 120_000)).toBe(true)
    expect(store.put(1, sha256(call('pwd')), call('pwd'), now)).toBe(true)
    expect(store.put(3, sha256(call('x'.repeat(200))), call('x'.repeat(200)), now)).toBe(false)
    for (let seq = 4; seq < 8; seq++) store.put(seq, sha256(call(`echo ${seq}`)), call(`echo ${seq}`), now)
    store.prune(now)
    expect(store.get(0)).toBeUndefined()
    expect(store.get(1)).toBeUndefined()
    expect(store.get(7)?.body).toBe('{"cwd":null,"input":{"command":"echo 7"},"tool":"Bash"}')
    expect([...store.all()].reduce((n, p) => n + Buffer.byteLength(p.body), 0)).toBeLessThanOrEqual(200)
    expect(retentionFrom({ SVC_PAYLOAD_RETENTION: '7d', SVC_PAYLOAD_MAX_MB: '10' })).toMatchObject({ maxAgeMs: 7 * 86_400_000, maxBytes: 10 * 1024 * 1024 })
    expect(() => retentionFrom({ SVC_PAYLOAD_MAX_MB: 'lots' })).toThrow(/SVC_PAYLOAD_MAX_MB/)
  })
})

describe('payload verification', () => {
  it('names a stored call whose bytes are not the ones its leaf hashed (put trusts the engine; verification does not)', () => {
    const store = new PayloadStore(join(tempDir(), 'payloads.db'))
    store.put(0, sha256(call('ls')), call('ls'), Date.now())
    store.put(1, sha256(call('ls')), call('rm -rf /'), Date.now())
    const leaves = new Map([
      [0, sha256(call('ls'))],
      [1, sha256(call('ls'))],
    ])
    const report = verifyPayloads(store, (seq) => leaves.get(seq))
    expect(report.checked).toBe(2)
    expect(report.problems).toEqual(["payload of seq 1: its bytes do not hash to the leaf's payload_hash (altered or swapped)"])
    store.close()
  })
})

describe('payload store writes', () => {
  it('writes the calls queued within a few milliseconds together, and a read or close sees every call stored before it', async () => {
    const path = join(tempDir(), 'payloads.db')
    const store = new PayloadStore(path)
    const other = new PayloadStore(path, undefined, { readOnly: true })
    const now = Date.now()
    for (let seq = 0; seq < 3; seq++) expect(store.put(seq, sha256(call(`echo ${seq}`)), call(`echo ${seq}`), now)).toBe(true)
    expect(other.get(0)).toBeUndefined() // queued, not yet written
    await new Promise((resolve) => setImmediate(resolve))
    expect(other.get(0)).toBeUndefined() // still queued after a turn of the event loop: one transaction for a burst
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect([...other.all()].map((p) => p.seq)).toEqual([0, 1, 2])
    store.put(3, sha256(call('pwd')), call('pwd'), now)
    expect(store.get(3)?.body).toBe(call('pwd')) // the store's own read writes the queue first
    store.put(4, sha256(call('id')), call('id'), now)
    store.close()
    expect(other.get(4)?.body).toBe(call('id')) // closing writes what is queued
    other.close()
  })

  it('writes at once when the queued calls reach 4 MiB, so a burst of large calls is not held in memory', () => {
    const path = join(tempDir(), 'payloads.db')
    const store = new PayloadStore(path)
    const other = new PayloadStore(path, undefined, { readOnly: true })
    const big = (seq: number) => call(`echo ${String(seq).repeat(1000 * 1000)}`)
    for (let seq = 0; seq < 4; seq++) expect(store.put(seq, sha256(big(seq)), big(seq), Date.now())).toBe(true)
    expect(other.get(0)).toBeUndefined() // 4 MB, under 4 MiB: still queued
    store.put(4, sha256(big(4)), big(4), Date.now())
    expect([...other.all()].map((p) => p.seq)).toEqual([0, 1, 2, 3, 4])
    store.close()
    other.close()
  })
})
