/**
 * The trust chain end to end on a real daemon: minting per tier, the daemon's refusals, checks signed by
 * the session key, proofs any RFC 6962 verifier accepts, expiry and rotation, heartbeat and insights.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'
import { hashLeaf } from '../core/ledger/merkle.ts'
import { verifyConsistency, verifyInclusion } from '../ledger-verify/proof-verify.ts'
import { verifyNote } from '../core/ledger/signed-note.ts'
import { newSeed, signingKeyFromSeed, verifyNative, verifyPortable } from '../core/ledger/ed25519.ts'
import { leafSigMessage } from '../core/ledger/leaf.ts'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { trustHostKey } from '../core/trust/host-keys.ts'
import { signSessionBundle } from '../core/trust/session-cert.ts'

const SOFT = { SVC_ALLOW_SOFTWARE_SIGNER: '1' }
let daemon: TestDaemon

/**
 * One daemon with both switches (software sessions and unattested ones) serves the unattested, current-session and
 * restart cases, in this order; the restart case stops it and starts a second daemon over its home.
 */
let both: Promise<TestDaemon> | undefined
const bothSwitches = () => (both ??= startTestDaemon({ env: SOFT }))
afterAll(async () => (await both)?.stop())
afterEach(() => void vi.restoreAllMocks())

async function softwareSession(d: TestDaemon, opts: Parameters<typeof mintSession>[1] = {}) {
  const body = mintSession(unlockHostKey('software', { home: d.home, env: SOFT }), opts)
  return d.request('POST', '/v1/sessions/create', body)
}

const check = (d: TestDaemon, sessionId: string, command = 'ls -la') =>
  d.request('POST', '/v1/gates/check', { session_id: sessionId, source: 'claude-code', tool: 'Bash', input: { command } })

// The cases share one daemon: each asserts on what it added (ledger seqs from its own start, its own sessions).
describe('signed sessions on the daemon', () => {
  beforeAll(async () => {
    daemon = await startTestDaemon({ env: { ...SOFT, SVC_ALLOW_UNATTESTED: '' } })
  })
  afterAll(() => daemon.stop())

  it('admits a software session, signs every check with its key, and proves inclusion and consistency', async () => {
    const base = (await daemon.request('GET', '/v1/ledger/root')).body.tree_size as number
    const created = await softwareSession(daemon, { userId: 'alice', groups: ['dev'] })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ signer: 'software', state: 'active', user_id: 'alice', groups: ['dev'], ledger_seq: base, banner: 'DEV — SOFTWARE SIGNER' })
    const id = created.body.session_id as string
    const sessionKey = Buffer.from(created.body.session_public_key, 'base64')
    const seqs: number[] = []
    for (const command of ['ls', 'rm -rf /', 'echo hi', 'cat /etc/hostname']) {
      const res = await check(daemon, id, command)
      expect(res.status).toBe(200)
      seqs.push(res.body.ledger_seq)
    }
    expect(seqs).toEqual([base + 1, base + 2, base + 3, base + 4])
    const [s2, s3, size] = [base + 2, base + 3, base + 5]

    const proof = (await daemon.request('GET', `/v1/ledger/proof/${s2}`)).body
    const leaf = Buffer.from(proof.leaf, 'base64')
    const leafObj = JSON.parse(leaf.toString())
    expect(leafObj).toMatchObject({ seq: s2, session_id: id, signer: 'software', tool: 'Bash', source: 'claude-code' })
    expect(hashLeaf(leaf).toString('base64')).toBe(proof.leaf_hash)
    expect(
      verifyInclusion(
        s2,
        proof.tree_size,
        hashLeaf(leaf),
        proof.proof.map((p: string) => Buffer.from(p, 'base64')),
        Buffer.from(proof.root, 'base64'),
      ),
    ).toEqual({ ok: true })
    expect(verifyPortable(Buffer.from(proof.leaf_sig, 'base64'), leafSigMessage(hashLeaf(leaf)), sessionKey)).toBe(true)

    const verdict = await daemon.request('POST', '/v1/ledger/verify', {
      leaf: proof.leaf,
      seq: s2,
      tree_size: proof.tree_size,
      proof: proof.proof,
      root: proof.root,
      leaf_sig: proof.leaf_sig,
      session_public_key: proof.session_public_key,
    })
    expect(verdict.body).toMatchObject({ valid: true, checks: { leaf: 'ok', inclusion: 'ok', signature: 'ok' } })
    const forged = await daemon.request('POST', '/v1/ledger/verify', { leaf: proof.leaf, seq: s3, tree_size: proof.tree_size, proof: proof.proof, root: proof.root })
    expect(forged.body).toMatchObject({ valid: false, reason: expect.stringMatching(/^leaf: /) })

    const root = (await daemon.request('GET', '/v1/ledger/root')).body
    expect(root).toMatchObject({ tree_size: size, seq: size - 1, signer: 'software', session_id: id })
    expect(verifyNote(root.checkpoint, root.vkey, verifyNative)).toMatchObject({ ok: true })
    expect(root.vkey).toContain(Buffer.concat([Buffer.from([1]), sessionKey]).toString('base64'))

    const cons = (await daemon.request('GET', `/v1/ledger/consistency?from=${s2}&to=${size}`)).body
    expect(
      verifyConsistency(
        s2,
        size,
        cons.proof.map((p: string) => Buffer.from(p, 'base64')),
        Buffer.from(cons.root_from, 'base64'),
        Buffer.from(cons.root_to, 'base64'),
      ),
    ).toEqual({ ok: true })
    expect(Buffer.from(cons.root_to, 'base64').toString('base64')).toBe(root.root)
    expect((await daemon.request('GET', `/v1/ledger/consistency?from=0&to=${size}`)).status).toBe(400)
    expect((await daemon.request('GET', `/v1/ledger/proof/${size + 94}`)).status).toBe(404)

    const page1 = (await daemon.request('GET', `/v1/ledger/entries?after=${base - 1}&limit=3`)).body
    expect(page1.entries.map((e: { seq: number }) => e.seq)).toEqual([base, base + 1, s2])
    const page2 = (await daemon.request('GET', `/v1/ledger/entries?after=${page1.next_after}&limit=3`)).body
    expect(page2).toMatchObject({ next_after: null, tree_size: size })
    expect(page2.entries.map((e: { seq: number }) => e.seq)).toEqual([s3, base + 4])

    // Every session of the daemon has its row; this one's counts are its four checks.
    const insights = (await daemon.request('GET', '/v1/sessions/insights')).body.sessions
    expect(insights).toHaveLength((await daemon.request('GET', '/v1/sessions')).body.sessions.length)
    const mine = insights.find((s: { session_id: string }) => s.session_id === id)
    expect(mine.counts.allow + mine.counts.deny + mine.counts.monitor_alert).toBe(4)
    expect(mine.top_tools).toEqual([{ tool: 'Bash', count: 4 }])
  })

  it.each([
    ['unattested without SVC_ALLOW_UNATTESTED', () => ({ signer: 'unattested' }), 403, /SVC_ALLOW_UNATTESTED=1/],
    [
      'a hardware key',
      () => ({ certificate: { bundle: { v: 1, session_id: `ses_${'0'.repeat(24)}`, signer: 'hardware_key', issued_at_ms: Date.now(), expires_at_ms: Date.now() + 1000 } } }),
      501,
      /not yet implemented/,
    ],
    ['a host key nobody trusted', () => mintSession({ kind: 'software', key: signingKeyFromSeed(newSeed()) }), 403, /not trusted by the daemon/],
    ['a signed-kind shorthand', () => ({ signer: 'totp' }), 400, /needs a certificate/],
  ] as const)('refuses %s', async (_what, body, status, detail) => {
    const before = (await daemon.request('GET', '/v1/ledger/root')).body.tree_size
    const res = await daemon.request('POST', '/v1/sessions/create', body())
    expect(res.status).toBe(status)
    expect(res.type).toContain('application/problem+json')
    expect(res.body.detail).toMatch(detail)
    expect((await daemon.request('GET', '/v1/ledger/root')).body.tree_size).toBe(before)
  })

  it('refuses forged claims: wrong kind, tampered bundle, mismatched secret, replay, overlong lifetime', async () => {
    const host = unlockHostKey('software', { home: daemon.home, env: SOFT })
    const asTotp = mintSession({ kind: 'totp', key: host.key })
    expect((await daemon.request('POST', '/v1/sessions/create', asTotp)).body.detail).toMatch(/trusted for signer software, but the certificate claims totp/)
    const good = mintSession(host)
    const tampered = { ...good, certificate: { ...good.certificate, bundle: { ...good.certificate.bundle, expires_at_ms: good.certificate.bundle.expires_at_ms - 1 } } }
    expect((await daemon.request('POST', '/v1/sessions/create', tampered)).body.detail).toMatch(/host signature does not verify/)
    const otherSecret = { ...good, session_secret: newSeed().toString('base64') }
    expect((await daemon.request('POST', '/v1/sessions/create', otherSecret)).body.detail).toMatch(/does not match the certified session_public_key/)
    expect((await daemon.request('POST', '/v1/sessions/create', good)).status).toBe(201)
    expect((await daemon.request('POST', '/v1/sessions/create', good)).status).toBe(409)
    const long = mintSession(host, { lifetimeMs: 13 * 3_600_000 })
    expect((await daemon.request('POST', '/v1/sessions/create', long)).body.detail).toMatch(/exceeds the daemon maximum of 12h/)
    const unknownField = await daemon.request('POST', '/v1/sessions/create', { ...good, extra: 1 })
    expect(unknownField.status).toBe(400)
  })

  it('refuses software sessions when the daemon lacks its own switch', async () => {
    const strict = await startTestDaemon({ env: { SVC_ALLOW_SOFTWARE_SIGNER: '' } })
    try {
      const body = mintSession(unlockHostKey('software', { home: strict.home, env: SOFT }))
      const res = await strict.request('POST', '/v1/sessions/create', body)
      expect(res.status).toBe(403)
      expect(res.body.detail).toMatch(/start the daemon with SVC_ALLOW_SOFTWARE_SIGNER=1/)
    } finally {
      await strict.stop()
    }
  })

  it('expires a session: the check is denied naming `svc session rotate`; rotation mints a new session and ends the old one', async () => {
    const created = await softwareSession(daemon, { lifetimeMs: 1_000 })
    const id = created.body.session_id as string
    expect((await check(daemon, id)).body.verdict).toBe('allow')
    // The daemon runs in this process: its clock moves past the certificate's expiry instead of the test sleeping.
    const now = Date.now
    vi.spyOn(Date, 'now').mockImplementation(() => now() + 1_100)
    const denied = await check(daemon, id)
    expect(denied.body).toMatchObject({ verdict: 'deny' })
    expect(denied.body.reason).toContain(`svc session rotate --id ${id}`)
    const leaf = (await daemon.request('GET', `/v1/ledger/proof/${denied.body.ledger_seq}`)).body
    expect(leaf.leaf_sig).toBeNull()
    expect(JSON.parse(Buffer.from(leaf.leaf, 'base64').toString())).toMatchObject({ signer: 'none', verdict: 'deny' })
    const hb = await daemon.request('POST', '/v1/sessions/heartbeat', { session_id: id })
    expect(hb).toMatchObject({ status: 503, body: { code: 'session_expired' } })

    const rotated = await softwareSession(daemon, { rotates: id })
    expect(rotated.status).toBe(201)
    expect(rotated.body).toMatchObject({ rotates: id, current: true })
    const rotationLeaf = JSON.parse(Buffer.from((await daemon.request('GET', `/v1/ledger/proof/${rotated.body.ledger_seq}`)).body.leaf, 'base64').toString())
    expect(rotationLeaf).toMatchObject({ type: 'session', verdict: 'session_rotated', certificate: { bundle: { rotates: id } } })
    expect((await check(daemon, rotated.body.session_id)).body.verdict).toBe('allow')
    expect((await daemon.request('GET', `/v1/sessions/${id}`)).body.state).toBe('ended')
    const list = (await daemon.request('GET', '/v1/sessions')).body.sessions.map((s: { session_id: string }) => s.session_id)
    expect(list.filter((s: string) => s === id || s === rotated.body.session_id)).toEqual([rotated.body.session_id, id])
    expect((await daemon.request('POST', '/v1/sessions/heartbeat', { session_id: rotated.body.session_id })).body.state).toBe('active')
    expect((await daemon.request('POST', '/v1/sessions/heartbeat', { session_id: 'ses_nope' })).status).toBe(404)
  })

  it('checks a session certificate signed by an enrolled key of the right kind only', async () => {
    const totpKey = signingKeyFromSeed(newSeed())
    trustHostKey(daemon.home, totpKey.publicKey, 'totp', 'test totp key')
    const res = await daemon.request('POST', '/v1/sessions/create', mintSession({ kind: 'totp', key: totpKey }))
    expect(res.status).toBe(201)
    expect(res.body.banner).toBe('TOTP-BACKED — MEDIUM ASSURANCE')
    const stolen = signSessionBundle({ ...mintSession({ kind: 'totp', key: totpKey }).certificate.bundle }, signingKeyFromSeed(newSeed()))
    expect((await daemon.request('POST', '/v1/sessions/create', { certificate: stolen })).status).toBe(403)
  })
})

describe('unattested sessions', () => {
  it('are admitted with the daemon switch, unsigned, and recorded as such', async () => {
    const d = await bothSwitches()
    const id = await d.session()
    const res = await check(d, id)
    const proof = (await d.request('GET', `/v1/ledger/proof/${res.body.ledger_seq}`)).body
    expect(proof.leaf_sig).toBeNull()
    expect(JSON.parse(Buffer.from(proof.leaf, 'base64').toString())).toMatchObject({ signer: 'unattested', session_id: id })
    expect((await d.request('GET', '/v1/ledger/root')).body).toMatchObject({ signer: 'unattested' })
  })
})

describe('the current session (used by harness hooks)', () => {
  it('is not silently downgraded by a weaker session; only an operator may rotate it down', async () => {
    const d = await bothSwitches()
    const operator = { authorization: `Bearer ${await d.operatorToken()}` }
    const strong = await softwareSession(d)
    const weak = await d.request('POST', '/v1/sessions/create', { signer: 'unattested' }, operator)
    expect(weak.status).toBe(201)
    expect(weak.body.current).toBe(false)
    expect((await d.request('GET', `/v1/sessions/${strong.body.session_id}`)).body.current).toBe(true)
    const downgrade = mintSession({ kind: 'unattested' }, { rotates: strong.body.session_id })
    expect((await d.request('POST', '/v1/sessions/create', downgrade)).status).toBe(401)
    expect((await d.request('GET', `/v1/sessions/${strong.body.session_id}`)).body).toMatchObject({ current: true, state: 'active' })
    const rotated = await d.request('POST', '/v1/sessions/create', downgrade, operator)
    expect(rotated.body).toMatchObject({ current: true, signer: 'unattested' })
  })
})

describe('rotation across a daemon restart', () => {
  it('rotates a session recorded in the ledger before the restart, and refuses an unknown one', async () => {
    const d1 = await bothSwitches()
    const home = d1.home
    const first = await softwareSession(d1)
    await d1.close()
    const d2 = await startTestDaemon({ env: SOFT, home })
    try {
      expect((await d2.request('GET', `/v1/sessions/${first.body.session_id}`)).body).toMatchObject({ state: 'ended', signer: 'software' })
      const stale = await check(d2, first.body.session_id)
      expect(stale.body.reason).toMatch(/svc session create/)
      expect((await softwareSession(d2, { rotates: 'ses_000000000000000000000000' })).status).toBe(404)
      const rotated = await softwareSession(d2, { rotates: first.body.session_id })
      expect(rotated.body).toMatchObject({ rotates: first.body.session_id, state: 'active' })
    } finally {
      await d2.stop()
    }
  })
})
