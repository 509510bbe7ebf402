/**
 * `svc policy bundle keygen|build|sign|verify` through the real CLI: what a security team runs to make the
 * bundle its daemons poll. `verify` refuses what a daemon would refuse, with the same reasons.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/daemon.ts'
import { denyGate, tamper } from './helpers/policy-bundle.ts'
import { runCli } from './helpers/run-cli.ts'

const dir = tempDir('svc-bundle-cli-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const env = { HOME: dir }
const svc = (...args: string[]) => runCli(['policy', 'bundle', ...args], env)

describe('svc policy bundle', () => {
  it('makes a key, builds and signs a bundle that verifies, and refuses tampered, unsigned and wrongly keyed ones', async () => {
    const keygen = await svc('keygen', '--out', join(dir, 'team'))
    expect(keygen.code).toBe(0)
    expect(keygen.stdout).toMatch(/key id ed25519:[0-9a-f]{32}/)
    expect(statSync(join(dir, 'team.key')).mode & 0o777).toBe(0o600)
    expect((await svc('keygen', '--out', join(dir, 'team'))).stderr).toMatch(/team\.key exists; refusing to overwrite/)

    const src = join(dir, 'src')
    mkdirSync(join(src, 'daemon'), { recursive: true })
    mkdirSync(join(src, 'registry', 'acme'), { recursive: true })
    writeFileSync(join(src, 'daemon', 'org.yaml'), denyGate('org.no-curl', '^curl '))
    writeFileSync(join(src, 'registry', 'acme', 'rule.yaml'), denyGate('acme.no-scp', '^scp '))
    const out = join(dir, 'bundle.tar.gz')
    const built = await svc('build', src, '--revision', '3', '--out', out, '--expires', '2099-01-01T00:00:00Z')
    expect(built.stdout).toMatch(/revision 3, 2 policy file\(s\), unsigned/)
    expect((await svc('verify', out, '--key', join(dir, 'team.pub'))).stderr).toMatch(/bundle REFUSED: bundle is not signed \(no \.signatures\.json\)/)

    expect((await svc('sign', out, '--key', join(dir, 'team.key'))).code).toBe(0)
    const ok = await svc('verify', out, '--key', join(dir, 'team.pub'), '--json')
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout)).toMatchObject({
      ok: true,
      revision: 3,
      expires: '2099-01-01T00:00:00Z',
      files: ['svc/daemon/org.yaml', 'svc/registry/acme/rule.yaml'],
      expired: false,
    })

    writeFileSync(join(dir, 'tampered.tar.gz'), await tamper(readFileSync(out), 'svc/daemon/org.yaml', denyGate('org.no-curl', '^nothing ')))
    expect((await svc('verify', join(dir, 'tampered.tar.gz'), '--key', join(dir, 'team.pub'))).stderr).toMatch(
      /"svc\/daemon\/org\.yaml" does not match its signed hash \(tampered\)/,
    )
    await svc('keygen', '--out', join(dir, 'other'))
    expect((await svc('verify', out, '--key', join(dir, 'other.pub'))).stderr).toMatch(/not a pinned bundle-signing key/)
    writeFileSync(join(dir, 'cut.tar.gz'), readFileSync(out).subarray(0, 200))
    expect((await svc('verify', join(dir, 'cut.tar.gz'), '--key', join(dir, 'team.pub'))).stderr).toMatch(/truncated or corrupt/)
  })

  it('refuses to build what a daemon could not use: unknown files, bad revisions, files that do not lint; verify flags an expired bundle', async () => {
    const src = join(dir, 'bad')
    mkdirSync(join(src, 'daemon'), { recursive: true })
    writeFileSync(join(src, 'user-policy.yaml'), denyGate('x', '^x '))
    expect((await svc('build', src, '--revision', '1', '--out', join(dir, 'x.tgz'))).stderr).toMatch(/"svc\/user-policy\.yaml" is not a bundle policy file/)
    rmSync(join(src, 'user-policy.yaml'))
    writeFileSync(join(src, 'daemon', 'broken.yaml'), 'version: 1\ngates:\n  - id: broken\n    when: { no_such_kind: 1 }\n')
    expect((await svc('build', src, '--revision', '0', '--out', join(dir, 'x.tgz'))).stderr).toMatch(/--revision 0: a whole number ≥ 1/)
    expect((await svc('build', src, '--revision', '1', '--out', join(dir, 'x.tgz'))).stderr).toMatch(/do not pass lint:[\s\S]*broken\.yaml/)
    writeFileSync(join(src, 'daemon', 'broken.yaml'), denyGate('fine', '^fine '))
    const old = join(dir, 'old.tgz')
    expect((await svc('build', src, '--revision', '1', '--out', old, '--expires', '2020-01-01T00:00:00Z', '--key', join(dir, 'team.key'))).code).toBe(0)
    expect((await svc('verify', old, '--key', join(dir, 'team.pub'))).stderr).toMatch(/bundle REFUSED: it expired at 2020-01-01T00:00:00Z/)
    const future = join(dir, 'future.tgz')
    expect((await svc('build', src, '--revision', '2', '--out', future, '--min-svc', '99.0.0', '--key', join(dir, 'team.key'))).code).toBe(0)
    expect((await svc('verify', future, '--key', join(dir, 'team.pub'))).stderr).toMatch(/bundle revision 2 needs svc 99\.0\.0 or newer; this is svc \d+\.\d+\.\d+/)
  })
})

describe('bundle format limits', () => {
  it('packs deterministically, refuses an archive over 16 MiB, and lets SVC_MANAGED_FILE name a file only while the standard place is empty', async () => {
    const { packBundle, unpackBundle, MAX_BUNDLE_BYTES } = await import('../plugins/policy-bundle/archive.ts')
    const { managedFilePath } = await import('../plugins/policy-bundle/managed.ts')
    const files = new Map([
      ['.manifest', Buffer.from('{"revision":1,"roots":["svc"]}')],
      ['svc/daemon/a.yaml', Buffer.from(denyGate('a', '^a '))],
    ])
    expect(packBundle(files).equals(packBundle(new Map([...files].reverse())))).toBe(true)
    expect(MAX_BUNDLE_BYTES).toBe(16 * 1024 * 1024)
    await expect(unpackBundle(Buffer.alloc(MAX_BUNDLE_BYTES + 1))).rejects.toThrow(/at most 16777216 are accepted/)
    const standard = join(dir, 'etc-managed.json')
    const mine = join(dir, 'mine.json')
    writeFileSync(mine, '{}')
    expect(managedFilePath({ SVC_MANAGED_FILE: mine }, standard)).toBe(mine)
    writeFileSync(standard, '{}')
    expect(managedFilePath({ SVC_MANAGED_FILE: mine }, standard)).toBe(standard)
    expect(managedFilePath({ SVC_MANAGED_FILE: join(dir, 'nowhere.json') }, join(dir, 'no-standard.json'))).toBeUndefined()
  })
})
