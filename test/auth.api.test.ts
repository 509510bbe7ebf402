/** Operator auth: password login, bearer tokens on PATCH /v1/mode, oidc/ldap hints. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'

let d: TestDaemon
beforeAll(async () => {
  // The daemon hashes SVC_ADMIN_PASSWORD itself at its first start here (other tests get a record made once per run).
  d = await startTestDaemon({ hashPassword: true })
})
afterAll(() => d.stop())

describe('password mode', () => {
  it('reports its mode', async () => {
    expect((await d.request('GET', '/v1/auth/mode')).body).toEqual({ mode: 'password' })
  })

  it('refuses PATCH /v1/mode without a token, with a bad token, and after a wrong password', async () => {
    const none = await d.request('PATCH', '/v1/mode', { mode: 'monitor' })
    expect(none.status).toBe(401)
    expect(none.body).toMatchObject({ code: 'unauthorized', detail: expect.stringContaining('/v1/auth/login') })
    const bad = await d.request('PATCH', '/v1/mode', { mode: 'monitor' }, { authorization: 'Bearer svc_forged' })
    expect(bad.status).toBe(401)
    const wrong = await d.request('POST', '/v1/auth/login', { password: 'guess' })
    expect(wrong.status).toBe(401)
    expect(wrong.body.detail).toBe('wrong password')
    expect((await d.request('GET', '/v1/mode')).body.mode).toBe('firewall')
  })

  it('accepts the token from a login', async () => {
    const login = await d.request('POST', '/v1/auth/login', { password: 'correct horse battery' })
    expect(login.body).toMatchObject({ token: expect.stringMatching(/^svc_/), token_type: 'Bearer', expires_at: expect.any(String) })
    const res = await d.request('PATCH', '/v1/mode', { mode: 'monitor' }, { authorization: `Bearer ${login.body.token}` })
    expect(res.body).toEqual({ mode: 'monitor', previous: 'firewall', ledger_seq: expect.any(Number) })
    const invalid = await d.request('PATCH', '/v1/mode', { mode: 'off' }, { authorization: `Bearer ${login.body.token}` })
    expect(invalid.status).toBe(400)
    expect(invalid.body.detail).toMatch(/must be equal to one of the allowed values/)
    await d.request('PATCH', '/v1/mode', { mode: 'firewall' }, { authorization: `Bearer ${login.body.token}` })
  })

  it('stores only a scrypt hash of the password', async () => {
    const { readFileSync, statSync } = await import('node:fs')
    const text = readFileSync(`${d.home}/auth.json`, 'utf8')
    expect(text).not.toContain('correct horse battery')
    expect(JSON.parse(text).password.algorithm).toBe('scrypt')
    expect(statSync(`${d.home}/auth.json`).mode & 0o777).toBe(0o600)
  })

  it('refuses an auth.json rewritten while the daemon runs (the agent’s own password), and records the change', async () => {
    const { setPassword } = await import('../daemon/index.ts')
    const { waitFor } = await import('./helpers/wait.ts')
    const own = await startTestDaemon({ home: tempDir(), hashPassword: true })
    try {
      const before = own.engine.ledger.size()
      setPassword(own.home, 'the agent knows this one')
      expect((await own.request('POST', '/v1/auth/login', { password: 'the agent knows this one' })).status).toBe(401)
      expect((await own.request('POST', '/v1/auth/login', { password: 'correct horse battery' })).status).toBe(200)
      const entry = await waitFor(() => {
        for (let seq = before; seq < own.engine.ledger.size(); seq++) {
          const leaf = own.engine.ledger.get(seq) as { verdict?: string; reason?: string } | undefined
          if (leaf?.verdict === 'config_changed' && leaf.reason?.includes('auth.json')) return leaf
        }
        return undefined
      }, 'the auth.json change in the ledger')
      expect(entry.reason).toMatch(/auth\.json changed while the daemon runs .*refused/)
    } finally {
      await own.stop()
    }
  })

  it('says how to set a password when none is set', async () => {
    const bare = await startTestDaemon({ env: { SVC_ADMIN_PASSWORD: '' } })
    const res = await bare.request('POST', '/v1/auth/login', { password: 'anything' })
    expect(res.status).toBe(401)
    expect(res.body.detail).toContain('svc auth set-password')
    await bare.stop()
  })
})

describe('oidc and ldap', () => {
  it.each(['oidc', 'ldap'])('%s answers 501 with a hint naming what is missing', async (mode) => {
    const other = await startTestDaemon({ home: tempDir(), env: { SVC_AUTH_MODE: mode } })
    expect((await other.request('GET', '/v1/auth/mode')).body).toMatchObject({ mode, hint: expect.stringContaining('not implemented') })
    const res = await other.request('POST', '/v1/auth/login', { password: 'x' })
    expect(res.status).toBe(501)
    expect(res.body).toMatchObject({ code: 'not_implemented', hint: expect.stringMatching(mode === 'oidc' ? /SVC_OIDC_ISSUER/ : /SVC_LDAP_URL/) })
    await other.stop()
  })
})
