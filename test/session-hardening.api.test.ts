/**
 * Sessions decide what gets signed, so only the operator may weaken them: an unattested session, and a
 * rotation that ends a still-active session, need an operator token; creation is rate-limited and capped
 * (429 with Retry-After); the list is paginated; and a session whose creation could not be ledgered does
 * not exist. Through the real daemon over HTTP, with a real second SQLite connection holding the lock.
 */
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'

const SOFT = { SVC_ALLOW_SOFTWARE_SIGNER: '1' }
let d: TestDaemon

beforeEach(async () => {
  d = await startTestDaemon({ env: SOFT })
})
afterEach(() => d.stop())

const software = (opts: Parameters<typeof mintSession>[1] = {}) => mintSession(unlockHostKey('software', { home: d.home, env: SOFT }), opts)
const create = (body: unknown, token?: string) => d.request('POST', '/v1/sessions/create', body, token ? { authorization: `Bearer ${token}` } : {})

describe('session creation', () => {
  it('needs operator rights for an unattested session and for rotating out an active one', async () => {
    const anonymous = await create({ signer: 'unattested' })
    expect(anonymous).toMatchObject({ status: 401, body: { code: 'unauthorized', detail: expect.stringMatching(/unattested session signs nothing/) } })
    expect((await create({ signer: 'unattested' }, 'svc_forged')).status).toBe(401)
    const first = await create(software())
    expect(first.status).toBe(201)
    // Same tier, but it would end a session that is still active: the operator decides that.
    const rotate = await create(software({ rotates: first.body.session_id }))
    expect(rotate).toMatchObject({ status: 401, body: { detail: expect.stringMatching(/is still active: ending it by rotation needs operator rights/) } })
    expect((await d.request('GET', `/v1/sessions/${first.body.session_id}`)).body).toMatchObject({ state: 'active', current: true })
    const token = await d.operatorToken()
    expect((await create(software({ rotates: first.body.session_id }), token)).body).toMatchObject({ rotates: first.body.session_id, current: true })
    expect((await d.request('GET', `/v1/sessions/${first.body.session_id}`)).body.state).toBe('ended')
    expect((await create({ signer: 'unattested' }, token)).status).toBe(201)
  })

  it('is rate-limited without operator rights (429 + Retry-After) and caps live unattested sessions', async () => {
    const statuses: number[] = []
    let limited: Response | undefined
    for (let i = 0; i < 40 && !limited; i++) {
      const res = await fetch(`${d.url}/v1/sessions/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(software()) })
      statuses.push(res.status)
      if (res.status === 429) limited = res
    }
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(25)
    expect(limited?.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/)
    expect(await limited!.json()).toMatchObject({ status: 429, code: 'too_many_requests', detail: expect.stringMatching(/too many sessions created/) })

    const token = await d.operatorToken()
    const unattested: number[] = []
    for (let i = 0; i < 20; i++) unattested.push((await create({ signer: 'unattested' }, token)).status)
    expect(unattested.filter((s) => s === 201).length).toBe(16)
    const capped = await create({ signer: 'unattested' }, token)
    expect(capped).toMatchObject({ status: 429, body: { detail: expect.stringMatching(/16 unattested sessions are live, the maximum is 16/) } })
  })

  it('leaves nothing usable when the ledger append of the creation fails', async () => {
    const first = await create(software())
    const lock = new DatabaseSync(join(d.home, 'ledger.db'))
    lock.exec('BEGIN EXCLUSIVE')
    let failed
    try {
      failed = await create(software())
    } finally {
      lock.exec('ROLLBACK')
      lock.close()
    }
    expect(failed.status).toBe(503)
    const listed = (await d.request('GET', '/v1/sessions')).body.sessions.map((s: { session_id: string }) => s.session_id)
    expect(listed).toEqual([first.body.session_id])
    expect((await d.request('GET', `/v1/sessions/${first.body.session_id}`)).body.current).toBe(true)
    expect(d.engine.sessions.list().map((s) => s.id)).toEqual([first.body.session_id])
  })
})

describe('GET /v1/sessions', () => {
  it('pages with limit and cursor, newest first, stable while sessions are created', async () => {
    const token = await d.operatorToken()
    const ids: string[] = []
    for (let i = 0; i < 7; i++) ids.push((await create(software(), token)).body.session_id)
    const page1 = (await d.request('GET', '/v1/sessions?limit=3')).body
    expect(page1.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(ids.slice(4).reverse())
    await create(software(), token)
    const page2 = (await d.request('GET', `/v1/sessions?limit=3&cursor=${page1.next_cursor}`)).body
    expect(page2.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(ids.slice(1, 4).reverse())
    const page3 = (await d.request('GET', `/v1/sessions?limit=3&cursor=${page2.next_cursor}`)).body
    expect(page3).toEqual({ sessions: [expect.objectContaining({ session_id: ids[0] })], next_cursor: null })
    expect((await d.request('GET', '/v1/sessions')).body.sessions).toHaveLength(8)
    expect((await d.request('GET', '/v1/sessions?limit=1000')).status).toBe(400)
    expect((await d.request('GET', '/v1/sessions?cursor=garbage')).status).toBe(400)
  })
})
