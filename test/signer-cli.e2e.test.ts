/**
 * The signer commands as a user runs them (real `svc` child processes against a real daemon): banners,
 * tier refusals with clear errors that mint nothing, TOTP enrollment and minting, and `svc ledger verify`
 * catching tampering of a leaf, a signature or a session certificate.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { generateSync } from 'otplib'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'

let daemon: TestDaemon
let env: NodeJS.ProcessEnv
const treeSize = async () => (await daemon.request('GET', '/v1/ledger/root')).body.tree_size as number

beforeAll(async () => {
  daemon = await startTestDaemon({ env: { SVC_ALLOW_SOFTWARE_SIGNER: '1' } })
  env = { SVC_HOME: daemon.home, SVC_URL: daemon.url, HOME: daemon.home }
})
afterAll(() => daemon.stop())

/** The CLI runs in this process: its clock moves past an enrollment's TTL instead of the test sleeping. */
function laterBy(ms: number): void {
  const now = Date.now
  vi.spyOn(Date, 'now').mockImplementation(() => now() + ms)
}
afterEach(() => void vi.restoreAllMocks())

describe('svc session create / rotate', () => {
  it('mints a software session with the red banner, and refuses it without the CLI switch', async () => {
    const refused = await runCli(['session', 'create', '--tier', 'software'], env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('DEV — SOFTWARE SIGNER')
    expect(refused.stderr).toMatch(/software signer is refused.*SVC_ALLOW_SOFTWARE_SIGNER=1/)
    expect(await treeSize()).toBe(0)
    const ok = await runCli(['session', 'create', '--tier', 'software', '--user-id', 'bob'], { ...env, SVC_ALLOW_SOFTWARE_SIGNER: '1' })
    expect(ok.code).toBe(0)
    expect(ok.stderr).toContain('*** DEV — SOFTWARE SIGNER ***')
    const minted = JSON.parse(ok.stdout)
    expect(minted).toMatchObject({ signer: 'software', user_id: 'bob', state: 'active' })
    // Rotating out a session that is still active is the operator's call.
    const anonymous = await runCli(['session', 'rotate', '--id', minted.session_id, '--tier', 'software'], { ...env, SVC_ALLOW_SOFTWARE_SIGNER: '1' })
    expect(anonymous).toMatchObject({ code: 1, stderr: expect.stringMatching(/is still active: ending it by rotation needs operator rights/) })
    const rotated = await runCli(['session', 'rotate', '--id', minted.session_id, '--tier', 'software'], {
      ...env,
      SVC_ALLOW_SOFTWARE_SIGNER: '1',
      SVC_ADMIN_PASSWORD: 'correct horse battery',
    })
    expect(rotated.code).toBe(0)
    expect(JSON.parse(rotated.stdout)).toMatchObject({ rotates: minted.session_id })
  })

  it('gives clear non-zero errors for hardware-key, os-keychain off macOS, bad tiers and bad lifetimes', async () => {
    const hw = await runCli(['session', 'create', '--tier', 'hardware-key'], env)
    expect(hw).toMatchObject({ code: 1, stderr: expect.stringMatching(/hardware-key is not yet implemented/) })
    const kc = await runCli(['signer', 'enroll', '--tier', 'os-keychain'], { ...env, SVC_KEYCHAIN_PLATFORM: 'win32' })
    expect(kc.code).toBe(1)
    expect(kc.stderr).toMatch(/needs an OS keystore, and none is usable on win32/)
    const gold = await runCli(['session', 'create', '--tier', 'gold'], env)
    expect(gold.code).not.toBe(0)
    expect(gold.stderr).toMatch(/Allowed choices are unattested, software, totp, os-keychain, hardware-key/)
    const life = await runCli(['session', 'create', '--tier', 'unattested', '--lifetime', '1.5h'], env)
    expect(life).toMatchObject({ code: 2, stderr: expect.stringMatching(/invalid duration "1\.5h"/) })
    const ttl = await runCli(['signer', 'enroll', '--tier', 'os-keychain', '--ttl', '10x'], env)
    expect(ttl).toMatchObject({ code: 2, stderr: expect.stringMatching(/--ttl: invalid duration "10x"/) })
  })

  it('enrolls TOTP, refuses a wrong code, a wrong passphrase and an expired enrollment, and mints with the yellow banner', async () => {
    // A daemon and CLI sharing one $SVC_HOME: enrollment writes the trust file the daemon reads.
    const totpDaemon = await startTestDaemon()
    const treeSize = async () => (await totpDaemon.request('GET', '/v1/ledger/root')).body.tree_size as number
    const totpEnv = { ...env, SVC_HOME: totpDaemon.home, HOME: totpDaemon.home, SVC_URL: totpDaemon.url }
    const enrolled = await runCli(['signer', 'enroll', '--tier', 'totp', '--passphrase', 'long enough passphrase'], totpEnv)
    expect(enrolled.code).toBe(0)
    const uri = /otpauth:\/\/\S+/.exec(enrolled.stdout)![0]
    const secret = new URL(uri).searchParams.get('secret')!
    const before = await treeSize()
    const code = generateSync({ secret, epoch: Math.floor(Date.now() / 1000) })
    const wrongCode = String((Number(code) + 500_000) % 1_000_000).padStart(6, '0')
    const bad = await runCli(['session', 'create', '--tier', 'totp', '--code', wrongCode, '--passphrase', 'long enough passphrase'], totpEnv)
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/wrong or already-used TOTP code/) })
    const badPass = await runCli(['session', 'create', '--tier', 'totp', '--code', code, '--passphrase', 'not the passphrase'], totpEnv)
    expect(badPass).toMatchObject({ code: 1, stderr: expect.stringMatching(/wrong passphrase/) })
    expect(await treeSize()).toBe(before)
    const ok = await runCli(['session', 'create', '--tier', 'totp', '--code', code, '--passphrase', 'long enough passphrase'], totpEnv)
    expect(ok.code).toBe(0)
    expect(ok.stderr).toContain('TOTP-BACKED — MEDIUM ASSURANCE')
    expect(JSON.parse(ok.stdout)).toMatchObject({ signer: 'totp' })

    const expiring = await runCli(['signer', 'enroll', '--tier', 'totp', '--passphrase', 'long enough passphrase', '--ttl', '1s'], totpEnv)
    expect(expiring.code).toBe(0)
    laterBy(1_100)
    const expired = await runCli(['session', 'create', '--tier', 'totp', '--code', '123456', '--passphrase', 'long enough passphrase'], totpEnv)
    expect(expired).toMatchObject({ code: 1, stderr: expect.stringMatching(/enrollment expired .* re-enroll/) })
    await totpDaemon.stop()
  })
})

describe('svc signer enroll --tier os-keychain (macOS `security` contract, faked on PATH)', () => {
  it('enrolls with a TTL, mints an os_keychain session without a banner, and refuses once expired', async () => {
    const kc = await startTestDaemon()
    try {
      const bin = join(kc.home, 'bin')
      mkdirSync(bin)
      copyFileSync(fileURLToPath(new URL('./fixtures/fake-security.sh', import.meta.url)), join(bin, 'security'))
      chmodSync(join(bin, 'security'), 0o755)
      mkdirSync(join(kc.home, 'keychain'))
      const kcEnv = {
        SVC_HOME: kc.home,
        HOME: kc.home,
        SVC_URL: kc.url,
        PATH: `${bin}:${process.env.PATH}`,
        FAKE_KEYCHAIN_DIR: join(kc.home, 'keychain'),
        SVC_KEYCHAIN_PLATFORM: 'darwin',
      }
      const enrolled = await runCli(['signer', 'enroll', '--tier', 'os-keychain', '--ttl', '2s'], kcEnv)
      expect(enrolled.code).toBe(0)
      expect(JSON.parse(readFileSync(join(kc.home, 'os-keychain.meta.json'), 'utf8'))).toMatchObject({ public_key: expect.any(String), expires_at: expect.any(String) })
      const minted = await runCli(['session', 'create', '--tier', 'os-keychain'], kcEnv)
      expect(minted.code).toBe(0)
      expect(minted.stderr).toBe('')
      expect(JSON.parse(minted.stdout)).toMatchObject({ signer: 'os_keychain', state: 'active' })
      laterBy(2_100)
      const expired = await runCli(['session', 'create', '--tier', 'os-keychain'], kcEnv)
      expect(expired).toMatchObject({ code: 1, stderr: expect.stringMatching(/enrollment expired .* re-enroll with `svc signer enroll --tier os-keychain`/) })
    } finally {
      await kc.stop()
    }
  })
})

describe('svc ledger verify', () => {
  it('verifies the daemon ledger, then detects a changed leaf byte, signature and session certificate', async () => {
    const minted = JSON.parse((await runCli(['session', 'create', '--tier', 'software'], { ...env, SVC_ALLOW_SOFTWARE_SIGNER: '1' })).stdout)
    for (const command of ['ls', 'rm -rf /', 'pwd']) {
      await daemon.request('POST', '/v1/gates/check', { session_id: minted.session_id, source: 'codex', tool: 'Bash', input: { command } })
    }
    await daemon.request('GET', '/v1/ledger/root')
    const ok = await runCli(['ledger', 'verify'], env)
    expect(ok.stdout).toContain('ledger verified: OK')
    expect(ok.code).toBe(0)
    const exported = join(daemon.home, 'export.json')
    expect((await runCli(['ledger', 'export', '--out', exported], env)).code).toBe(0)
    expect((await runCli(['ledger', 'verify', '--file', exported, '--portable'], env)).code).toBe(0)

    const copy = join(daemon.home, 'tampered.db')
    const tamper = async (sql: string) => {
      const src = new DatabaseSync(join(daemon.home, 'ledger.db'))
      src.exec(`VACUUM INTO '${copy}.${tamper.n}'`)
      src.close()
      const db = new DatabaseSync(`${copy}.${tamper.n}`)
      db.exec('DROP TRIGGER leaves_no_update')
      db.exec(sql)
      db.close()
      return runCli(['ledger', 'verify', '--db', `${copy}.${tamper.n++}`], env)
    }
    tamper.n = 0
    const seqOf = minted.ledger_seq as number
    const body = await tamper(`UPDATE leaves SET body = replace(body, '"codex"', '"cursor"') WHERE seq = ${seqOf + 1}`)
    expect(body.code).toBe(1)
    expect(body.stderr).toMatch(new RegExp(`seq ${seqOf + 1}: stored leaf hash does not match`))
    const sig = await tamper(`UPDATE leaves SET sig = randomblob(64) WHERE seq = ${seqOf + 2}`)
    expect(sig.stderr).toMatch(new RegExp(`seq ${seqOf + 2}: leaf signature does not verify`))
    const cert = await tamper(`UPDATE leaves SET body = replace(body, '"signer":"software"', '"signer":"os_keychain"'), leaf_hash = leaf_hash WHERE seq = ${seqOf}`)
    expect(cert.code).toBe(1)
    expect(cert.stderr).toMatch(/ledger verification FAILED/)
  })
})
