/**
 * Signed policy bundles end to end: a real daemon polls a real HTTP origin (ETag, 304), takes its
 * daemon/registry/group layers from the signed bundle, and refuses a tampered file, a wrong key, an older
 * revision, an expired bundle, a truncated download and a bundle that does not compile — each time keeping
 * the previous bundle in force and ledgering what happened. A restart with the origin down starts from the
 * last good bundle, re-verified. The managed file is refused when anyone but root could change it, and its
 * floor only tightens: no user or repo seal disables a bundle gate, and the mode cannot go below it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chmodSync, chownSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { startBundleServer, type BundleServer } from './helpers/bundle-server.ts'
import { buildBundle, denyGate, newSigningKey, tamper, writeManaged, type SigningKey } from './helpers/policy-bundle.ts'
import { runCli } from './helpers/run-cli.ts'
import { activate, stageBundle } from '../plugins/policy-bundle/disk.ts'
import { verifyBundle } from '../plugins/policy-bundle/verify.ts'
import { trustRoot } from '../plugins/policy-bundle/signature.ts'
import { waitFor } from './helpers/wait.ts'

vi.setConfig({ testTimeout: 60_000 })

let key: SigningKey
let server: BundleServer
const dirs: string[] = []
const temp = (prefix: string) => {
  const d = tempDir(prefix)
  dirs.push(d)
  return d
}

const orgFiles = (rev: number) => ({
  'svc/daemon/org.yaml': denyGate('org.no-curl', '^curl '),
  'svc/registry/acme/rule.yaml': denyGate(`acme.no-scp-r${rev}`, '^scp '),
  'svc/group-policy.yaml': `version: 1\ngroups:\n  contractors:\n    gates:\n      - id: contractors.no-kubectl\n        when: { tool: Bash, command_regex: '^kubectl ' }\n`,
})

beforeAll(async () => {
  key = await newSigningKey()
  server = await startBundleServer(await buildBundle({ revision: 5, files: orgFiles(5), key }))
})
afterAll(async () => {
  await server.close()
})

async function status(d: TestDaemon) {
  return (await d.request('GET', '/v1/policy/bundle')).body
}

async function bundleLeaves(d: TestDaemon) {
  const entries = (await d.request('GET', '/v1/ledger/entries?limit=1000')).body.entries.map((e: { leaf: any }) => e.leaf)
  return entries.filter((l: any) => typeof l.verdict === 'string' && l.verdict.startsWith('policy_bundle_'))
}

async function check(d: TestDaemon, sid: string, command: string, cwd?: string) {
  return (await d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command }, ...(cwd ? { cwd } : {}) })).body as {
    verdict: string
    rule_id: string
  }
}

/** Waits until the daemon has answered another poll (counted downloads) and returns its status. */
async function nextCheck(d: TestDaemon) {
  const before = (await status(d)).checks
  return waitFor(async () => {
    const s = await status(d)
    return s.checks >= before + 2 ? s : undefined
  }, 'two more bundle checks')
}

describe('signed policy bundle', () => {
  let d: TestDaemon
  let home: string
  let managedDir: string

  beforeAll(async () => {
    home = temp('svc-bundle-home-')
    managedDir = temp('svc-managed-')
    writeManaged(managedDir, server.url, [key])
    d = await startTestDaemon({ home, env: { SVC_MANAGED_FILE: join(managedDir, 'managed.json') } })
  })
  afterAll(async () => {
    await d?.stop()
  })

  it('activates the served bundle: its gates decide, carry a bundle source, and the activation is ledgered with revision and sha256', async () => {
    const s = await waitFor(async () => ((await status(d)).active ? status(d) : undefined), 'the first activation')
    expect(s).toMatchObject({ configured: true, url: server.url, trusted_keys: [key.keyid], active: { revision: 5, keyid: key.keyid, expired: false } })
    expect(s.active.sha256).toMatch(/^[0-9a-f]{64}$/)
    const sid = await d.session({ groups: ['contractors'] })
    expect(await check(d, sid, 'curl https://example.com')).toMatchObject({ verdict: 'deny', rule_id: 'org.no-curl' })
    expect(await check(d, sid, 'scp a b:')).toMatchObject({ verdict: 'deny', rule_id: 'acme.no-scp-r5' })
    expect(await check(d, sid, 'kubectl get pods')).toMatchObject({ verdict: 'deny', rule_id: 'contractors.no-kubectl' })
    const view = (await d.request('GET', '/v1/policy/view')).body
    const sources = Object.fromEntries(view.gates.map((g: { id: string; source: string }) => [g.id, g.source]))
    expect(sources).toMatchObject({ 'org.no-curl': 'bundle', 'acme.no-scp-r5': 'bundle:registry:acme', 'contractors.no-kubectl': 'bundle:group:contractors' })
    const [activated] = await bundleLeaves(d)
    expect(activated).toMatchObject({
      type: 'control',
      verdict: 'policy_bundle_activated',
      facts: { revision: '5', sha256: s.active.sha256, keyid: key.keyid, previous_revision: '' },
    })
    // The origin is asked again with If-None-Match and answers 304; nothing is downloaded twice.
    await waitFor(() => server.counts.notModified >= 2, 'conditional requests answered 304')
    expect(server.counts.ok).toBe(1)
    expect((await status(d)).last_check.outcome).toBe('not_modified')
    // `svc status` shows it.
    const shown = await runCli(['status', '--url', d.url], { HOME: temp('svc-status-home-'), SVC_HOME: home })
    expect(shown.stdout).toMatch(new RegExp(`bundle: +revision 5 \\(sha256 ${s.active.sha256.slice(0, 12)}, signed by ${key.keyid}\\) from ${server.url}; last check not_modified`))
  })

  const refusals: [string, () => Promise<Buffer>, RegExp][] = [
    [
      'a tampered file',
      async () => tamper(await buildBundle({ revision: 6, files: orgFiles(6), key }), 'svc/daemon/org.yaml', denyGate('org.no-curl', '^never-matches ')),
      /does not match its signed hash/,
    ],
    ['a bundle signed by an unpinned key', async () => buildBundle({ revision: 6, files: orgFiles(6), key: await newSigningKey() }), /not a pinned bundle-signing key/],
    ['an older revision (rollback)', async () => buildBundle({ revision: 4, files: orgFiles(4), key }), /older than the active revision 5 \(rollback refused\)/],
    ['the same revision with other content', async () => buildBundle({ revision: 5, files: { 'svc/daemon/org.yaml': denyGate('org.other', '^x ') }, key }), /different content/],
    ['an expired bundle', async () => buildBundle({ revision: 6, files: orgFiles(6), key, expires: '2020-01-01T00:00:00Z' }), /expired at 2020-01-01/],
    [
      'a bundle that does not compile',
      async () => buildBundle({ revision: 6, files: { 'svc/daemon/org.yaml': 'version: 1\ngates:\n  - id: broken\n    when: { no_such_kind: 1 }\n' }, key }),
      /does not compile/,
    ],
    [
      'an unsigned bundle with an extra file',
      async () => tamper(await buildBundle({ revision: 6, files: orgFiles(6), key }), 'svc/daemon/extra.yaml', denyGate('extra', '^y ')),
      /not in its signed file list/,
    ],
  ]
  for (const [what, make, reason] of refusals) {
    it(`refuses ${what}, keeps revision 5 in force and ledgers the refusal`, async () => {
      const before = (await bundleLeaves(d)).length
      server.serve(await make())
      const s = await waitFor(async () => {
        const now = await status(d)
        return now.last_refusal && reason.test(now.last_refusal.reason) ? now : undefined
      }, `the refusal of ${what}`)
      expect(s.active.revision).toBe(5)
      const sid = await d.session()
      expect(await check(d, sid, 'curl https://example.com')).toMatchObject({ verdict: 'deny', rule_id: 'org.no-curl' })
      const leaves = await bundleLeaves(d)
      expect(leaves.length).toBe(before + 1)
      expect(leaves.at(-1)).toMatchObject({ verdict: 'policy_bundle_refused', facts: { active_revision: '5' } })
      expect(leaves.at(-1).facts.reason).toMatch(reason)
      expect(leaves.at(-1).facts.sha256).toMatch(/^[0-9a-f]{64}$/)
      // A refused bundle is asked for with its ETag too; the refusal is not ledgered again on every poll.
      await nextCheck(d)
      expect((await bundleLeaves(d)).length).toBe(before + 1)
      // Only the active revision's directory is kept (a staged bundle that did not compile is removed).
      expect(readdirSync(join(home, 'bundles')).filter((n) => n.startsWith('r'))).toHaveLength(1)
    })
  }

  it('keeps the active bundle when a download is cut short, then takes a newer revision', async () => {
    const next = await buildBundle({ revision: 7, files: orgFiles(7), key })
    server.serve(next)
    server.truncate = true
    await waitFor(() => server.counts.truncated >= 2, 'truncated downloads')
    server.truncate = false
    expect((await status(d)).active.revision).toBe(5)
    const s = await waitFor(async () => ((await status(d)).active.revision === 7 ? status(d) : undefined), 'revision 7')
    expect(s.last_check).toMatchObject({ outcome: expect.stringMatching(/activated|not_modified/) })
    const sid = await d.session()
    expect(await check(d, sid, 'scp a b:')).toMatchObject({ verdict: 'deny', rule_id: 'acme.no-scp-r7' })
    expect((await bundleLeaves(d)).at(-1)).toMatchObject({ verdict: 'policy_bundle_activated', facts: { revision: '7', previous_revision: '5' } })
  })

  it('starts from the last good bundle (re-verified) when the origin is down, and drops one that no longer verifies', async () => {
    await d.stop()
    await server.down()
    try {
      const env = { SVC_MANAGED_FILE: join(managedDir, 'managed.json') }
      // An edit to the unpacked files while the daemon was down does not survive the restart.
      const unpacked = readdirSync(join(home, 'bundles')).find((n) => n.startsWith('r7-'))!
      writeFileSync(join(home, 'bundles', unpacked, 'files', 'svc', 'registry', 'acme', 'rule.yaml'), denyGate('acme.edited', '^nothing '))
      d = await startTestDaemon({ home, env })
      const s = await status(d)
      expect(s.active).toMatchObject({ revision: 7 })
      await waitFor(async () => (await status(d)).last_check?.outcome === 'unreachable', 'an unreachable origin')
      const sid = await d.session()
      expect(await check(d, sid, 'scp a b:')).toMatchObject({ verdict: 'deny', rule_id: 'acme.no-scp-r7' })
      await d.stop()
      // Trust roots rotated by the administrator: the saved bundle is signed by a key no longer pinned.
      writeManaged(managedDir, server.url, [await newSigningKey()])
      d = await startTestDaemon({ home, env })
      const after = await status(d)
      expect(after.active).toBeUndefined()
      expect(after.last_refusal.reason).toMatch(/last good bundle on disk no longer verifies/)
      const sid2 = await d.session()
      expect((await check(d, sid2, 'scp a b:')).verdict).toBe('allow')
      expect((await bundleLeaves(d)).at(-1)).toMatchObject({ verdict: 'policy_bundle_refused' })
      writeManaged(managedDir, server.url, [key])
    } finally {
      await server.up()
    }
  })
})

describe('a last good bundle that no longer compiles (an svc upgrade changed what its gates may say)', () => {
  it('starts anyway, denies every call with the reason, ledgers it, and lifts the deny with the next revision that compiles', async () => {
    const home = temp('svc-bundle-stale-')
    const managedDir = temp('svc-managed-stale-')
    // Signed and verified, but one gate uses a kind this svc does not know: left on disk by another svc version.
    const stale = await buildBundle({ revision: 20, files: { 'svc/daemon/org.yaml': 'version: 1\ngates:\n  - id: org.future\n    when: { tool: Bash, future_kind: x }\n' }, key })
    activate(home, stageBundle(home, await verifyBundle(stale, [trustRoot(key.publicPem)]), stale))
    const origin = await startBundleServer(stale)
    let daemon: TestDaemon | undefined
    try {
      writeManaged(managedDir, origin.url, [key])
      daemon = await startTestDaemon({ home, env: { SVC_MANAGED_FILE: join(managedDir, 'managed.json') } })
      // The refusal shows once its leaf is appended (the engine records it as the daemon starts).
      const s = await waitFor(async () => {
        const now = await status(daemon!)
        return now.last_refusal ? now : undefined
      }, 'the refusal in the status')
      expect(s.active).toMatchObject({ revision: 20 })
      expect(s.last_refusal.reason).toMatch(/revision 20 does not compile on this svc .*future_kind/)
      const sid = await daemon.session()
      for (const command of ['ls', 'git status']) {
        const answer = (await daemon.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command } })).body
        expect(answer).toMatchObject({ verdict: 'deny', rule_id: 'svc.policy-bundle-unusable' })
        expect(answer.reason).toMatch(/managed policy bundle does not compile/)
      }
      expect((await daemon.request('GET', '/v1/policy/view')).body.gates).toContainEqual(expect.objectContaining({ id: 'svc.policy-bundle-unusable', source: 'bundle' }))
      expect((await bundleLeaves(daemon)).filter((l: any) => l.verdict === 'policy_bundle_refused').map((l: any) => l.facts.revision)).toEqual(['20'])

      origin.serve(await buildBundle({ revision: 21, files: { 'svc/daemon/org.yaml': denyGate('org.no-curl', '^curl ') }, key }))
      await waitFor(async () => (await status(daemon!)).active?.revision === 21, 'revision 21 active')
      expect(await check(daemon, sid, 'ls')).toMatchObject({ verdict: 'allow' })
      expect(await check(daemon, sid, 'curl https://example.com')).toMatchObject({ verdict: 'deny', rule_id: 'org.no-curl' })
    } finally {
      await daemon?.stop()
      await origin.close()
    }
  })
})

describe('managed file', () => {
  it('refuses a managed file that is group- or world-writable or not owned by root, naming the fix', async () => {
    const dir = temp('svc-managed-bad-')
    const path = writeManaged(dir, server.url, [key])
    chmodSync(path, 0o666)
    await expect(startTestDaemon({ env: { SVC_MANAGED_FILE: path } })).rejects.toThrow(/writable by its group or by everyone \(mode 666\); refused \(chmod 644/)
    chmodSync(path, 0o644)
    chownSync(path, 1000, 1000)
    await expect(startTestDaemon({ env: { SVC_MANAGED_FILE: path } })).rejects.toThrow(/is owned by uid 1000, not root/)
    chownSync(path, 0, 0)
    writeFileSync(path, JSON.stringify({ bundle: { url: 'ftp://x', keys: [key.publicPem] } }))
    await expect(startTestDaemon({ env: { SVC_MANAGED_FILE: path } })).rejects.toThrow(/managed file .*\/bundle\/url must match pattern/)
  })
})

describe('managed floor', () => {
  let d: TestDaemon
  let home: string
  let floorServer: BundleServer

  beforeAll(async () => {
    floorServer = await startBundleServer(await buildBundle({ revision: 1, files: { 'svc/daemon/org.yaml': denyGate('org.no-curl', '^curl ') }, key }))
    home = temp('svc-floor-home-')
    const managed = writeManaged(temp('svc-floor-managed-'), floorServer.url, [key], { floor: { mode: 'firewall' } })
    // The machine was in monitor mode before the administrator set a floor.
    const before = await startTestDaemon({ home })
    await before.request('PATCH', '/v1/mode', { mode: 'monitor' }, { authorization: `Bearer ${await before.operatorToken()}` })
    await before.stop()
    d = await startTestDaemon({ home, env: { SVC_MANAGED_FILE: managed } })
    await waitFor(async () => (await status(d)).active, 'the floor bundle')
  })
  afterAll(async () => {
    await d?.stop()
    await floorServer.close()
  })

  it('raises the mode to the floor at start (ledgered) and refuses to set it below', async () => {
    expect((await d.request('GET', '/v1/mode')).body.mode).toBe('firewall')
    const leaves = (await d.request('GET', '/v1/ledger/entries?limit=1000')).body.entries.map((e: { leaf: any }) => e.leaf)
    expect(leaves.filter((l: any) => l.verdict === 'mode_changed').at(-1)).toMatchObject({ facts: { who: 'managed floor', from: 'monitor', to: 'firewall' } })
    const res = await d.request('PATCH', '/v1/mode', { mode: 'monitor' }, { authorization: `Bearer ${await d.operatorToken()}` })
    expect(res.status).toBe(403)
    expect(res.body.detail).toMatch(/below the managed floor \(firewall\)/)
    expect((await d.request('GET', '/v1/mode')).body.mode).toBe('firewall')
  })

  it('keeps an active bundle in force once it expires, flagged in the status and by svc status', async () => {
    const expires = new Date(Date.now() + 1500).toISOString()
    floorServer.serve(await buildBundle({ revision: 2, files: { 'svc/daemon/org.yaml': denyGate('org.no-curl', '^curl ') }, key, expires }))
    await waitFor(async () => (await status(d)).active.revision === 2, 'revision 2')
    const s = await waitFor(async () => ((await status(d)).active.expired ? status(d) : undefined), 'the expiry')
    expect(s.active).toMatchObject({ revision: 2, expires, expired: true })
    const sid = await d.session()
    expect(await check(d, sid, 'curl https://example.com')).toMatchObject({ verdict: 'deny', rule_id: 'org.no-curl' })
    const shown = await runCli(['status', '--url', d.url], { HOME: temp('svc-status-home-'), SVC_HOME: home })
    expect(shown.stdout).toMatch(/policy bundle revision 2 expired at .*; it stays in force until a newer one is served/)
  })

  it('lets no user or repo file loosen a bundle gate: an allow does not override it and a sealed disable does not switch it off', async () => {
    const repo = temp('svc-floor-repo-')
    mkdirSync(join(repo, '.git'))
    const seal = (file: string, replacement: string) =>
      d.engine.sealer.seal({ gate_id: 'org.no-curl', file, event_seq: 3, at: '2026-11-23T06:00:00Z', replacement_id: replacement, note: 'loosen' })
    const marker = (file: string, replacement: string) =>
      `  - id: org.no-curl\n    disabled: true\n    disabled_by: { event_seq: 3, at: '2026-11-23T06:00:00Z', replacement_id: ${replacement}, note: loosen, seal: ${seal(file, replacement)} }\n  - id: ${replacement}\n    when: { tool: Bash, command_regex: '^never ' }\n`
    writeFileSync(
      join(home, 'user-policy.yaml'),
      `version: 1\ngates:\n  - id: user.allow-all\n    when: { tool: '*' }\n    on_hit: allow\n${marker(join(home, 'user-policy.yaml'), 'user.replacement')}`,
    )
    writeFileSync(join(repo, '.svc.yaml'), `version: 1\ngates:\n${marker(join(repo, '.svc.yaml'), 'repo.replacement')}`)
    await waitFor(async () => (await d.request('GET', '/v1/policy/view')).body.gates.some((g: { id: string }) => g.id === 'user.allow-all'), 'the user file')
    const sid = await d.session()
    expect(await check(d, sid, 'curl https://example.com', repo)).toMatchObject({ verdict: 'deny', rule_id: 'org.no-curl' })
    expect(await check(d, sid, 'curl https://example.com')).toMatchObject({ verdict: 'deny', rule_id: 'org.no-curl' })
    // Calls no bundle gate matches are still decided by the local layers.
    expect((await check(d, sid, 'echo ok')).verdict).toBe('allow')
  })
})

describe('managed pack floor', () => {
  it('keeps the packs the managed file locks on, at its severity, whatever packs.json says; svc policy packs shows and refuses', async () => {
    const home = temp('svc-packfloor-home-')
    const managed = join(temp('svc-packfloor-managed-'), 'managed.json')
    writeFileSync(managed, JSON.stringify({ floor: { packs: { iac: 'deny', databases: 'on' } } }))
    chmodSync(managed, 0o644)
    // The user had turned both off before the administrator locked them.
    writeFileSync(join(home, 'packs.json'), JSON.stringify({ version: 1, packs: { iac: 'off', databases: 'off', kubernetes: 'off' } }))
    const env = { SVC_MANAGED_FILE: managed }
    const d = await startTestDaemon({ home, env })
    try {
      const sid = await d.session()
      expect(await check(d, sid, `psql -c 'DROP TABLE users'`)).toMatchObject({ verdict: 'deny' })
      // Locked at deny: a gate shipped as monitor (terraform apply) now denies too.
      expect(await check(d, sid, 'terraform apply')).toMatchObject({ verdict: 'deny', rule_id: 'iac.apply' })
      // A pack the floor does not name stays the user's to turn off.
      expect((await check(d, sid, 'kubectl delete namespace prod')).verdict).toBe('allow')
      expect((await status(d)).floor).toEqual({ packs: { iac: 'deny', databases: 'on' } })
      const listed = await runCli(['policy', 'packs'], { SVC_HOME: home, ...env })
      expect(listed.stdout).toMatch(/^iac +locked on \(managed\), all deny /m)
      expect(listed.stdout).toMatch(/^databases +locked on \(managed\) /m)
      expect(listed.stdout).toMatch(/^kubernetes +off /m)
      const refused = await runCli(['policy', 'packs', 'disable', 'databases'], { SVC_HOME: home, ...env })
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toMatch(/pack_locked: databases is locked on by the machine's managed file \(floor\.packs\)/)
      const shown = await runCli(['status', '--url', d.url], { HOME: temp('svc-status-home-'), SVC_HOME: home, ...env })
      expect(shown.stdout).toMatch(/locked on: databases \(managed\), iac \(managed, all deny\)/)
    } finally {
      await d.stop()
    }
  })

  it('refuses a floor that names a pack with a bad choice, naming the field', async () => {
    const managed = join(temp('svc-packfloor-bad-'), 'managed.json')
    writeFileSync(managed, JSON.stringify({ floor: { packs: { iac: 'off' } } }))
    chmodSync(managed, 0o644)
    await expect(startTestDaemon({ env: { SVC_MANAGED_FILE: managed } })).rejects.toThrow(/managed file .*\/floor\/packs\/iac must be equal to one of the allowed values/)
  })
})

afterAll(async () => {
  const { rmSync } = await import('node:fs')
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
