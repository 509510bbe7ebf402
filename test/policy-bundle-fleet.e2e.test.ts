/**
 * The fleet case of issue 18: three `svc daemon` processes on this machine, one managed file, one bundle
 * origin. All three pick up the same signed bundle; all three refuse a tampered one and an older one and
 * keep the good revision; all three move on to the next good revision.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { rmSync } from 'node:fs'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess, type DaemonProcess } from './helpers/daemon-process.ts'
import { startBundleServer } from './helpers/bundle-server.ts'
import { buildBundle, denyGate, newSigningKey, tamper, writeManaged } from './helpers/policy-bundle.ts'
import { waitFor } from './helpers/wait.ts'

vi.setConfig({ testTimeout: 120_000 })

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const get = async (d: DaemonProcess, path: string) => (await fetch(`${d.url}${path}`)).json() as Promise<any>

describe('a fleet of three daemons', () => {
  it('picks up the same signed bundle, refuses a tampered and an older one, then takes the next revision', async () => {
    const key = await newSigningKey()
    const files = (rev: number) => ({ 'svc/daemon/org.yaml': denyGate(`org.rev-${rev}`, '^curl ') })
    const server = await startBundleServer(await buildBundle({ revision: 10, files: files(10), key }))
    const managedDir = tempDir('svc-fleet-managed-')
    dirs.push(managedDir)
    const managed = writeManaged(managedDir, server.url, [key])
    const fleet: DaemonProcess[] = []
    try {
      // The three start side by side; whichever started is stopped below even when another fails to.
      const starts = [0, 1, 2].map((i) => {
        const home = tempDir(`svc-fleet-${i}-`)
        dirs.push(home)
        return startDaemonProcess({
          PATH: process.env.PATH,
          HOME: home,
          SVC_HOME: home,
          SVC_MANAGED_FILE: managed,
          SVC_ALLOW_UNATTESTED: '1',
          SVC_ADMIN_PASSWORD: 'correct horse battery',
        })
      })
      const started = await Promise.allSettled(starts)
      for (const s of started) if (s.status === 'fulfilled') fleet.push(s.value)
      for (const s of started) if (s.status === 'rejected') throw s.reason
      const revisions = () => Promise.all(fleet.map(async (d) => (await get(d, '/v1/policy/bundle')).active?.revision))
      await waitFor(async () => (await revisions()).every((r) => r === 10), 'revision 10 on all three daemons', 30_000)
      const shas = await Promise.all(fleet.map(async (d) => (await get(d, '/v1/policy/bundle')).active.sha256))
      expect(new Set(shas).size).toBe(1)
      for (const d of fleet) expect((await get(d, '/v1/policy/view')).gates).toContainEqual(expect.objectContaining({ id: 'org.rev-10', source: 'bundle' }))

      const refusedBy = async (pattern: RegExp) =>
        waitFor(
          async () => {
            const all = await Promise.all(fleet.map((d) => get(d, '/v1/policy/bundle')))
            return all.every((s) => pattern.test(s.last_refusal?.reason ?? '')) ? all : undefined
          },
          `all three refusing (${pattern})`,
          30_000,
        )
      server.serve(await tamper(await buildBundle({ revision: 11, files: files(11), key }), 'svc/daemon/org.yaml', denyGate('org.rev-11', '^nothing ')))
      for (const s of await refusedBy(/does not match its signed hash/)) expect(s.active.revision).toBe(10)
      server.serve(await buildBundle({ revision: 9, files: files(9), key }))
      for (const s of await refusedBy(/rollback refused/)) expect(s.active.revision).toBe(10)
      for (const d of fleet) {
        const leaves = (await get(d, '/v1/ledger/entries?limit=1000')).entries.map((e: { leaf: any }) => e.leaf)
        expect(leaves.filter((l: any) => l.verdict === 'policy_bundle_refused').map((l: any) => l.facts.revision)).toEqual(['11', '9'])
      }

      server.serve(await buildBundle({ revision: 12, files: files(12), key }))
      await waitFor(async () => (await revisions()).every((r) => r === 12), 'revision 12 on all three daemons', 30_000)
      for (const d of fleet) {
        const leaves = (await get(d, '/v1/ledger/entries?limit=1000')).entries.map((e: { leaf: any }) => e.leaf)
        expect(leaves.filter((l: any) => l.verdict === 'policy_bundle_activated').map((l: any) => l.facts.revision)).toEqual(['10', '12'])
      }
    } finally {
      await Promise.all(fleet.map((d) => d.stop()))
      await server.close()
    }
  })
})
