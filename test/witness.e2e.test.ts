/**
 * Witnessed checkpoints end to end: a real daemon with SVC_WITNESS_POLICY submits its checkpoints, countersigned
 * by the host log key, to two C2SP witness stand-ins (tlog-witness add-checkpoint with consistency proofs);
 * GET /v1/ledger/root and `svc ledger verify` show the verified cosignatures and the quorum. A clone of the
 * machine that goes on with another history (a split view) is refused by the witnesses, and the stand-in
 * itself refuses an inconsistent checkpoint signed with the real log key.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { checkpointText, signingKeyFromSeed, signNote } from '../core/index.ts'
import { verifyCosignature, parseWitnessVkey } from '../plugins/witness/index.ts'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess, type DaemonProcess } from './helpers/daemon-process.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'
import { startWitnessStandIn } from './helpers/witness-standin.ts'

vi.setConfig({ testTimeout: 180_000 })

const root = tempDir('svc-witness-')
afterAll(() => rmSync(root, { recursive: true, force: true }))
const envOf = (home: string) => ({
  PATH: process.env.PATH,
  HOME: home,
  SVC_HOME: home,
  SVC_ALLOW_SOFTWARE_SIGNER: '1',
  SVC_ADMIN_PASSWORD: 'correct horse battery',
  SVC_LOG_LEVEL: 'info',
})

async function decide(daemon: DaemonProcess, home: string, n: number): Promise<number> {
  const created = await daemon.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home, env: envOf(home) })))
  expect(created.status).toBe(201)
  let seq = 0
  for (let i = 0; i < n; i++)
    seq = (await daemon.post('/v1/gates/check', { session_id: created.body.session_id, source: 'claude-code', tool: 'Bash', input: { command: `echo ${i}` } })).body.ledger_seq
  return seq + 1
}

type Root = { origin: string; tree_size: number; witnesses?: { witness: string; tree_size: number; root: string; cosignature: string; error?: string }[] }
const rootOf = async (d: DaemonProcess) => (await (await fetch(`${d.url}/v1/ledger/root`)).json()) as Root

describe('witnessed checkpoints', () => {
  it('two witnesses cosign the growing ledger; a cloned machine with another history is refused', async () => {
    const w1 = await startWitnessStandIn('witness.example/w1')
    const w2 = await startWitnessStandIn('witness.example/w2')
    const home = join(root, 'host')
    const policy = join(root, 'policy.txt')
    writeFileSync(policy, `# two witnesses, both required\nwitness w1 ${w1.vkey} ${w1.url}\nwitness w2 ${w2.vkey} ${w2.url}\ngroup both all w1 w2\nquorum both\n`)
    const env = { ...envOf(home), SVC_WITNESS_POLICY: policy, SVC_WITNESS_INTERVAL: '200ms', SVC_CHECKPOINT_INTERVAL: '200ms' }
    let daemon = await startDaemonProcess(env)
    const daemons = [daemon]
    try {
      // Enrolment: the security team registers the host's log vkey with each witness (witnessctl add-key).
      const vkey = (await runCli(['ledger', 'log-key'], env)).stdout.trim()
      const origin = (await rootOf(daemon)).origin
      expect(vkey.startsWith(`${origin}+`)).toBe(true)
      w1.addLog(vkey)
      w2.addLog(vkey)

      const size = await decide(daemon, home, 5)
      let view = await waitFor(
        async () => {
          const r = await rootOf(daemon)
          return r.witnesses?.length === 2 && r.witnesses.every((w) => w.tree_size >= size && !w.error) ? r : undefined
        },
        'both cosignatures',
        60_000,
      )
      for (const w of view.witnesses!) {
        const key = parseWitnessVkey(w.witness === 'w1' ? w1.vkey : w2.vkey)
        expect(verifyCosignature(w.cosignature, key, checkpointText(origin, w.tree_size, Buffer.from(w.root, 'base64')), Date.now() / 1000).ok).toBe(true)
      }
      // The ledger grows: the next submissions carry old sizes and consistency proofs the witnesses check.
      const grown = await decide(daemon, home, 7)
      view = await waitFor(
        async () => {
          const r = await rootOf(daemon)
          return r.witnesses?.every((w) => w.tree_size >= grown) ? r : undefined
        },
        'cosignatures of the grown tree',
        60_000,
      )
      expect(w1.state.get(origin)!.size).toBeGreaterThanOrEqual(grown)
      expect(w1.statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2)

      const verified = await runCli(['ledger', 'verify', '--witness-policy', policy], env)
      expect(verified.stderr).toBe('')
      expect(verified.stdout).toMatch(/witness w1: cosigned \d+ leaves at .* \(verified\)/)
      expect(verified.stdout).toContain('witness quorum both: met')

      // Split view: the machine's state is cloned; the original goes on, and so does the clone, differently.
      await daemon.stop()
      const cloneHome = join(root, 'clone')
      execFileSync('cp', ['-a', home, cloneHome])
      daemon = await startDaemonProcess(env)
      daemons.push(daemon)
      const originalSize = await decide(daemon, home, 3)
      await waitFor(async () => (await rootOf(daemon)).witnesses?.every((w) => w.tree_size >= originalSize), 'the original keeps being witnessed', 60_000)
      const clone = await startDaemonProcess({ ...envOf(cloneHome), SVC_WITNESS_POLICY: policy, SVC_WITNESS_INTERVAL: '200ms', SVC_CHECKPOINT_INTERVAL: '200ms' })
      daemons.push(clone)
      await decide(clone, cloneHome, 9)
      const refused = await waitFor(
        async () => {
          const r = await rootOf(clone)
          return r.witnesses?.every((w) => w.error?.startsWith('422')) ? r : undefined
        },
        'the clone refused by both witnesses',
        60_000,
      )
      expect(refused.witnesses!.every((w) => w.tree_size < refused.tree_size)).toBe(true)
      expect(w1.statuses).toContain(422)
      // The clone's own verify: the cosignatures it keeps are of a size both histories share; the quorum is judged
      // at the clone's newest checkpoint, which no witness cosigned.
      const cloneEnv = { ...envOf(cloneHome), SVC_WITNESS_POLICY: policy }
      const forked = await runCli(['ledger', 'verify', '--witness-policy', policy], cloneEnv)
      expect(forked.code).not.toBe(0)
      expect(forked.stderr).toMatch(/witness quorum both: NOT met for the newest checkpoint \(size \d+\); it holds up to size \d+, so leaves seq \d+\.\.\d+ are not witnessed/)
      const report = JSON.parse((await runCli(['ledger', 'verify', '--witness-policy', policy, '--json'], cloneEnv)).stdout)
      expect(report.witnesses.quorum).toMatchObject({ name: 'both', met: false })
      expect(report.witnesses.witnesses.map((w: { id: string; verified: boolean }) => [w.id, w.verified])).toEqual([
        ['w1', true],
        ['w2', true],
      ])
    } finally {
      for (const d of daemons) await d.stop()
      await w1.close()
      await w2.close()
    }
  })

  it('the stand-in answers as tlog-witness says: 404, 403, 409 with the size, 422 for an inconsistent checkpoint', async () => {
    const w = await startWitnessStandIn('witness.example/w3')
    try {
      const seed = Buffer.alloc(32, 7)
      const key = signingKeyFromSeed(seed)
      const origin = 'svc.local/example'
      const { noteVerifierKey } = await import('../core/index.ts')
      const post = (body: string) => fetch(`${w.url}/add-checkpoint`, { method: 'POST', body })
      const note = (size: number, rootByte: number) => signNote(checkpointText(origin, size, Buffer.alloc(32, rootByte)), origin, key)
      expect((await post(`old 0\n\n${note(4, 1)}`)).status).toBe(404)
      w.addLog(noteVerifierKey(origin, key.publicKey))
      const other = signingKeyFromSeed(Buffer.alloc(32, 9))
      expect((await post(`old 0\n\n${signNote(checkpointText(origin, 4, Buffer.alloc(32, 1)), origin, other)}`)).status).toBe(403)
      expect((await post(`old 5\n\n${note(4, 1)}`)).status).toBe(400)
      expect((await post(`old 0\n\n${note(4, 1)}`)).status).toBe(200)
      const stale = await post(`old 0\n\n${note(6, 2)}`)
      expect(stale.status).toBe(409)
      expect(stale.headers.get('content-type')).toBe('text/x.tlog.size')
      expect(await stale.text()).toBe('4\n')
      // A bigger tree whose "proof" does not link it to the cosigned one: refused, never cosigned.
      expect((await post(`old 4\n${Buffer.alloc(32, 3).toString('base64')}\n\n${note(6, 2)}`)).status).toBe(422)
      expect((await post(`old 4\n\n${note(4, 5)}`)).status).toBe(409) // same size, another root
      expect(w.state.get(origin)!.size).toBe(4)
    } finally {
      await w.close()
    }
  })
})
