/**
 * Durability under SIGKILL: a daemon killed in the middle of a write load restarts with every acknowledged
 * seq present, and the whole ledger (hashes, chain, signatures, session certificate) still verifies.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { rmSync } from 'node:fs'
import { unlockHostKey } from '../cli/signer/long-lived-key.ts'
import { mintSession } from '../cli/signer/mint.ts'
import { tempDir } from './helpers/daemon.ts'
import { startDaemonProcess } from './helpers/daemon-process.ts'
import { runCli } from './helpers/run-cli.ts'

// Two real daemons, a write load and the real CLI: allow for a busy machine.
vi.setConfig({ testTimeout: 180_000 })

const home = tempDir('svc-crash-')
const env = { PATH: process.env.PATH, HOME: home, SVC_HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', SVC_LOG_LEVEL: 'info' }
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe('SIGKILL during a write load', () => {
  it('loses no acknowledged leaf and the ledger verifies after restart', async () => {
    const first = await startDaemonProcess(env)
    const created = await first.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home, env })))
    expect(created.status).toBe(201)
    const sessionId = created.body.session_id as string
    const acked: number[] = []
    let stop = false
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const r = await first.post('/v1/gates/check', { session_id: sessionId, source: 'claude-code', tool: 'Bash', input: { command: `echo ${w}-${i}` } })
          if (r.status === 200) acked.push(r.body.ledger_seq)
        } catch {
          return // connection reset by the kill
        }
      }
    }
    const workers = Array.from({ length: 8 }, (_, w) => worker(w))
    while (acked.length < 400) await new Promise((r) => setTimeout(r, 5))
    const exited = new Promise((r) => first.child.once('exit', r))
    first.child.kill('SIGKILL')
    stop = true
    await Promise.all(workers)
    await exited

    const second = await startDaemonProcess(env)
    try {
      const root = (await (await fetch(`${second.url}/v1/ledger/root`)).json()) as { tree_size: number }
      expect(root.tree_size).toBeGreaterThan(Math.max(...acked))
      for (const seq of acked) {
        const proof = await fetch(`${second.url}/v1/ledger/proof/${seq}`)
        expect(proof.status, `acknowledged seq ${seq}`).toBe(200)
      }
    } finally {
      second.child.kill('SIGTERM')
      await new Promise((r) => second.child.once('exit', r))
    }
    const verified = await runCli(['ledger', 'verify'], env)
    expect(verified.stderr).toBe('')
    expect(verified.stdout).toContain('ledger verified: OK')
    expect(verified.code).toBe(0)
  })
})
