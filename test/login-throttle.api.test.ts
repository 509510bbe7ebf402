/**
 * Operator logins are throttled per client (one attempt at a time, then an exponential wait answered with
 * 429 + Retry-After, reset by a success), and the password hash runs off the event loop, so a burst of
 * wrong logins cannot stall hooks and checks. Through the real daemon over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
let session: string
const PASSWORD = 'correct horse battery'

beforeAll(async () => {
  d = await startTestDaemon()
  session = await d.session()
})
afterAll(() => d.stop())

const login = (password: string) => fetch(`${d.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) })

describe('operator login', () => {
  it('runs one attempt per client at a time: 8 concurrent wrong logins cost one password hash', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => login('wrong password!')))
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses).toEqual([401, 429, 429, 429, 429, 429, 429, 429])
    const limited = answers.find((r) => r.status === 429)!
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/)
    expect(await limited.json()).toMatchObject({ code: 'too_many_requests', detail: expect.stringMatching(/one at a time/) })
  })

  it('makes a client wait, doubling, after repeated failures, even with the right password; a success resets it', async () => {
    expect((await login('wrong password!')).status).toBe(401)
    expect((await login('wrong password!')).status).toBe(401)
    const blocked = await login(PASSWORD)
    expect(blocked.status).toBe(429)
    const wait = Number(blocked.headers.get('retry-after'))
    expect(wait).toBeGreaterThanOrEqual(1)
    expect(((await blocked.json()) as { detail: string }).detail).toMatch(/too many failed logins from this client: wait \d+s/)
    await new Promise((r) => setTimeout(r, wait * 1000 + 100))
    expect((await login(PASSWORD)).status).toBe(200)
    expect((await login('wrong password!')).status).toBe(401)
    expect((await login(PASSWORD)).status).toBe(200)
  })

  it('hashes passwords off the event loop: a check sent during a login is answered before it', async () => {
    const order: string[] = []
    const slow = login('wrong password!').then((r) => order.push(`login ${r.status}`))
    await new Promise((r) => setTimeout(r, 15))
    const check = fetch(`${d.url}/v1/gates/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: session, source: 'claude-code', tool: 'Bash', input: { command: 'ls' } }),
    }).then((r) => order.push(`check ${r.status}`))
    await Promise.all([slow, check])
    expect(order).toEqual(['check 200', 'login 401'])
  })
})
