/**
 * A clean stop of a daemon that exports to a collector logs no error: the export thread closes its exporter and
 * the daemon exits 0 (a shutdown used to log `The "string" argument must be of type string … Received undefined`).
 */
import { afterAll, expect, it, vi } from 'vitest'
import { rmSync } from 'node:fs'
import { unlockHostKey } from '../../cli/signer/long-lived-key.ts'
import { mintSession } from '../../cli/signer/mint.ts'
import { tempDir } from '../../test/helpers/daemon.ts'
import { startDaemonProcess } from '../../test/helpers/daemon-process.ts'
import { startOtlpReceiver } from '../../test/helpers/otlp-receiver.ts'
import { waitFor } from '../../test/helpers/wait.ts'

vi.setConfig({ testTimeout: 60_000 })
const home = tempDir('svc-otlp-stop-')
afterAll(() => rmSync(home, { recursive: true, force: true }))

it('stops cleanly while exporting to a local collector: no error logged, exit 0', async () => {
  const receiver = await startOtlpReceiver()
  const env = { PATH: process.env.PATH, HOME: home, SVC_HOME: home, SVC_ALLOW_SOFTWARE_SIGNER: '1', SVC_ADMIN_PASSWORD: 'correct horse battery', SVC_LOG_LEVEL: 'info' }
  const daemon = await startDaemonProcess({ ...env, SVC_OTLP_ENDPOINT: receiver.url, SVC_OTLP_INTERVAL: '100ms' })
  try {
    const created = await daemon.post('/v1/sessions/create', mintSession(unlockHostKey('software', { home, env })))
    expect(created.status).toBe(201)
    await daemon.post('/v1/gates/check', { session_id: created.body.session_id, source: 'claude-code', tool: 'Bash', input: { command: 'ls' } })
    await waitFor(() => receiver.records.length >= 2, 'the first leaves')
    await waitFor(() => daemon.stdout().includes('OTLP export running'), 'the export thread')
  } finally {
    const code = await daemon.stop()
    await receiver.close()
    const errors = daemon
      .stdout()
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l))
    expect(errors).toEqual([])
    expect(daemon.stdout()).not.toMatch(/PE_POLICY_INVALID|Received undefined/)
    expect(daemon.stderr()).not.toMatch(/PE_POLICY_INVALID|Received undefined/)
    expect(code).toBe(0)
  }
})
