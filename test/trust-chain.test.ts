/**
 * The trust chain end to end on a real daemon: minting per tier, the daemon's refusals, checks signed by
 * the session key, proofs any RFC 6962 verifier accepts, expiry and rotation, heartbeat and insights.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'
import { hashLeaf } from '../core/ledger/merkle.ts'
import { verifyConsistency, verifyInclusion } from '../core/ledger/proof-verify.ts'
import { verifyNote } from '../core/ledger/signed-note.ts'
import { newSeed, signingKeyFromSeed, verifyNative, verifyPortable } from '../core/ledger/ed25519.ts'
import { leafSigMessage } from '../core/ledger/leaf.ts'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { trustHostKey } from '../core/trust/host-keys.ts'
import { signSessionBundle } from '../core/trust/session-cert.ts'

const SOFT = { SVC_ALLOW_SOFTWARE_SIGNER: '1' }
let daemon: TestDaemon

async function softwareSession(d: TestDaemon, opts: Parameters<typeof mintSession>[1] = {}) {
  const body = mintSession(unlockHostKey('software', { home: d.home, env: SOFT }), opts)
  return d.request('POST', '/v1/sessions/create', body)
}

const check = (d: TestDaemon, sessionId: string, command = 'ls -la') =>
  d.request('POST', '/v1/gates/check', { session_id: sessionId, source: 'claude-code', tool: 'Bash', input: { command } })

describe('signed sessions on the daemon', () => {
  beforeEach(async () => {
    daemon = await startTestDaemon({ env: { ...SOFT, SVC_ALLOW_UNATTESTED: '' } })
  })
  afterEach(() => daemon.stop())

  it('admits a software session, signs every check with its key, and proves inclusion and consistency', async () => {
    const created = await softwareSession(daemon, { userId: 'alice', groups: ['dev'] })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ signer: 'software', state: 'active', user_id: 'alice', groups: ['dev'], ledger_seq: 0, banner: 'DEV — SOFTWARE SIGNER' })
    const id = created.body.session_id as string
    const sessionKey = Buffer.from(created.body.session_public_key, 'base64')
    const seqs: number[] = []
    for (const command of ['ls', 'rm -rf /', 'echo hi', 'cat /etc/hostname']) {
      const res = await check(daemon, id, command)
      expect(res.status).toBe(200)
      seqs.push(res.body.ledger_seq)
    }
    expect(seqs).toEqual([1, 2, 3, 4])

    const proof = (await daemon.request('GET', '/v1/ledger/proof/2')).body
    const leaf = Buffer.from(proof.leaf, 'base64')
    const leafObj = JSON.parse(leaf.toString())
    expect(leafObj).toMatchObject({ seq: 2, session_id: id, signer: 'software', tool: 'Bash', source: 'claude-code' })
    expect(hashLeaf(leaf).toString('base64')).toBe(proof.leaf_hash)
    expect(verifyInclusion(2, proof.tree_size, hashLeaf(leaf), proof.proof.map((p: string) => Buffer.from(p, 'base64')), Buffer.from(proof.root, 'base64'))).toEqual({ ok: true })
    expect(verifyPortable(Buffer.from(proof.leaf_sig, 'base64'), leafSigMessage(hashLeaf(leaf)), sessionKey)).toBe(true)

    const verdict = await daemon.request('POST', '/v1/ledger/verify', { leaf: proof.leaf, seq: 2, tree_size: proof.tree_size, proof: proof.proof, root: proof.root, leaf_sig: proof.leaf_sig, session_public_key: proof.session_public_key })
    expect(verdict.body).toMatchObject({ valid: true, checks: { leaf: 'ok', inclusion: 'ok', signature: 'ok' } })
    const forged = await daemon.request('POST', '/v1/ledger/verify', { leaf: proof.leaf, seq: 3, tree_size: proof.tree_size, proof: proof.proof, root: proof.root })
    expect(forged.body).toMatchObject({ valid: false, reason: expect.stringMatching(/^leaf: /) })

    const root = (await daemon.request('GET', '/v1/ledger/root')).body
    expect(root).toMatchObject({ tree_size: 5, seq: 4, signer: 'software', session_id: id })
    expect(verifyNote(root.checkpoint, root.vkey, verifyNative)).toMatchObject({ ok: true })
    expect(root.vkey).toContain(Buffer.concat([Buffer.from([1]), sessionKey]).toString('base64'))

    const cons = (await daemon.request('GET', '/v1/ledger/consistency?from=2&to=5')).body
    expect(verifyConsistency(2, 5, cons.proof.map((p: string) => Buffer.from(p, 'base64')), Buffer.from(cons.root_from, 'base64'), Buffer.from(cons.root_to, 'base64'))).toEqual({ ok: true })
    expect(Buffer.from(cons.root_to, 'base64').toString('base64')).toBe(root.root)
    expect((await daemon.request('GET', '/v1/ledger/consistency?from=0&to=5')).status).toBe(400)
    expect((await daemon.request('GET', '/v1/ledger/proof/99')).status).toBe(404)

    const page1 = (await daemon.request('GET', '/v1/ledger/entries?after=-1&limit=3')).body
    expect(page1.entries.map((e: { seq: number }) => e.seq)).toEqual([0, 1, 2])
    const page2 = (await daemon.request('GET', `/v1/ledger/entries?after=${page1.next_after}&limit=3`)).body
    expect(page2).toMatchObject({ next_after: null, tree_size: 5 })
    expect(page2.entries.map((e: { seq: number }) => e.seq)).toEqual([3, 4])

    const insights = (await daemon.request('GET', '/v1/sessions/insights')).body.sessions
    expect(insights).toHaveLength(1)
    expect(insights[0].session_id).toBe(id)
    expect(insights[0].counts.allow + insights[0].counts.deny + insights[0].counts.monitor_alert).toBe(4)
    expect(insights[0].top_tools).toEqual([{ tool: 'Bash', count: 4 }])
  })

  it.each([
    ['unattested without SVC_ALLOW_UNATTESTED', () => ({ signer: 'unattested' }), 403, /SVC_ALLOW_UNATTESTED=1/],
    ['a hardware key', () => ({ certificate: { bundle: { v: 1, session_id: `ses_${'0'.repeat(24)}`, signer: 'hardware_key', issued_at_ms: Date.now(), expires_at_ms: Date.now() + 1000 } } }), 501, /not yet implemented/],
    ['a host key nobody trusted', () => mintSession({ kind: 'software', key: signingKeyFromSeed(newSeed()) }), 403, /not trusted by the daemon/],
    ['a signed-kind shorthand', () => ({ signer: 'totp' }), 400, /needs a certificate/],
  ] as const)('refuses %s', async (_what, body, status, detail) => {
    const res = await daemon.request('POST', '/v1/sessions/create', body())
    expect(res.status).toBe(status)
    expect(res.type).toContain('application/problem+json')
    expect(res.body.detail).toMatch(detail)
    expect((await daemon.request('GET', '/v1/ledger/root')).body.tree_size).toBe(0)
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
    await new Promise((r) => setTimeout(r, 1_100))
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
    const list = (await daemon.request('GET', '/v1/sessions')).body.sessions
    expect(list.map((s: { session_id: string }) => s.session_id)).toEqual([rotated.body.session_id, id])
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
    const d = await startTestDaemon()
    try {
      const id = await d.session()
      const res = await check(d, id)
      const proof = (await d.request('GET', `/v1/ledger/proof/${res.body.ledger_seq}`)).body
      expect(proof.leaf_sig).toBeNull()
      expect(JSON.parse(Buffer.from(proof.leaf, 'base64').toString())).toMatchObject({ signer: 'unattested', session_id: id })
      expect((await d.request('GET', '/v1/ledger/root')).body).toMatchObject({ signer: 'unattested' })
    } finally {
      await d.stop()
    }
  })
})

describe('rotation across a daemon restart', () => {
  it('rotates a session recorded in the ledger before the restart, and refuses an unknown one', async () => {
    const d1 = await startTestDaemon({ env: SOFT })
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

describe('the current session (used by harness hooks)', () => {
  it('is not silently downgraded by a weaker session; only an operator may rotate it down', async () => {
    const d = await startTestDaemon({ env: SOFT })
    try {
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
    } finally {
      await d.stop()
    }
  })
})
